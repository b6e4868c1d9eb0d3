package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// LayerNormalize implements backend.LayerNormOps with host ops over the
// kernels in internal/kernels/layernorm.go: the normalisation, and for its
// gradient x's (through each row's mean and variance) and the per-feature
// sums for gamma and beta. The reference is a dozen Gorgonia ops, most of
// which clone a tensor as large as x.
func (o *graphOps) LayerNormalize(x, gamma, beta backend.Value, eps float64) (backend.Value, error) {
	xs := x.Shape()
	c := xs[len(xs)-1]
	dt := o.dtype
	inputs, wrt, gammaAt, betaAt := affineInputs([]*G.Node{node(x)}, []bool{true}, gamma, beta)
	fwd := newHostOp("LayerNormalize", tensor.Shape(xs).Clone(), dt, inputs, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) {
			kernels.LayerNormForward(f32(in[0]), optional32(in, gammaAt), optional32(in, betaAt), c, eps, d)
		}), func64(func(d []float64) {
			kernels.LayerNormForward(f64(in[0]), optional64(in, gammaAt), optional64(in, betaAt), c, eps, d)
		}))
	})
	fwd.wrt = wrt
	fwd.diff = func(inputs G.Nodes, _, dy *G.Node) (G.Nodes, error) {
		x := inputs[0]
		gradIn := []*G.Node{x, dy}
		gammaIn := -1
		if gammaAt >= 0 {
			gammaIn = len(gradIn)
			gradIn = append(gradIn, inputs[gammaAt])
		}
		dx, err := newHostOp("LayerNormGradInput", x.Shape().Clone(), dt, gradIn, func(dst *tensor.Dense, in []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) {
				kernels.LayerNormGradInput(f32(in[0]), optional32(in, gammaIn), f32(in[1]), c, eps, d)
			}), func64(func(d []float64) {
				kernels.LayerNormGradInput(f64(in[0]), optional64(in, gammaIn), f64(in[1]), c, eps, d)
			}))
		}).apply(gradIn...)
		if err != nil || (gammaAt < 0 && betaAt < 0) {
			return G.Nodes{dx}, err
		}
		sums, err := newHostOp("LayerNormGradParams", tensor.Shape{2 * c}, dt, []*G.Node{x, dy}, func(dst *tensor.Dense, in []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) { kernels.LayerNormGradParams(f32(in[0]), f32(in[1]), eps, d) }),
				func64(func(d []float64) { kernels.LayerNormGradParams(f64(in[0]), f64(in[1]), eps, d) }))
		}).apply(x, dy)
		if err != nil {
			return nil, err
		}
		return affineGrads(G.Nodes{dx}, sums, c, gammaAt, betaAt, dt)
	}
	return wrap(fwd.apply(inputs...))
}

var _ backend.LayerNormOps = (*graphOps)(nil)
