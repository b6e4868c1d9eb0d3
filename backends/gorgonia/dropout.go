package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Dropout implements backend.DropoutOps: the mask in one pass from the
// program's generator (drawing what RandomUniform would, in the same
// place of the graph, on every core: kernels.DropoutMaskFrom), then the masked product and its gradient as
// parallel host ops. The reference was a uniform draw and three Gorgonia
// ops (a comparison and two products, each cloning x) forward and two
// products backward, on one core.
func (o *graphOps) Dropout(x backend.Value, rate float64) (backend.Value, error) {
	xn := node(x)
	shape := tensor.Shape(x.Shape()).Clone()
	seed := G.NewConstant(o.scalarValue(0), G.In(o.g))
	src := o.src
	mask, err := newHostOp("DropoutMask", shape, o.dtype, []*G.Node{seed}, func(dst *tensor.Dense, _ []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.DropoutMaskFrom(d, float32(rate), src) }),
			func64(func(d []float64) { kernels.DropoutMaskFrom(d, rate, src) }))
	}).apply(seed)
	if err != nil {
		return nil, err
	}
	scale := 1 / (1 - rate)
	fwd := newHostOp("Dropout", shape, o.dtype, []*G.Node{xn, mask}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.DropoutApply(f32(in[0]), f32(in[1]), float32(scale), d) }),
			func64(func(d []float64) { kernels.DropoutApply(f64(in[0]), f64(in[1]), scale, d) }))
	})
	fwd.wrt = []bool{true, false}
	fwd.diff = func(inputs G.Nodes, _, dy *G.Node) (G.Nodes, error) {
		dx, err := newHostOp("DropoutGrad", shape, o.dtype, []*G.Node{dy, inputs[1]}, func(dst *tensor.Dense, in []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) { kernels.DropoutGrad(f32(in[0]), f32(in[1]), float32(scale), d) }),
				func64(func(d []float64) { kernels.DropoutGrad(f64(in[0]), f64(in[1]), scale, d) }))
		}).apply(dy, inputs[1])
		if err != nil {
			return nil, err
		}
		return G.Nodes{dx, nil}, nil
	}
	return wrap(fwd.apply(xn, mask))
}

var _ backend.DropoutOps = (*graphOps)(nil)
