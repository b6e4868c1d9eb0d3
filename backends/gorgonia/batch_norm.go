package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// BatchNormalize implements backend.BatchNormOps with host ops over the
// kernels in internal/kernels/batchnorm.go: the statistics (one op, not
// differentiated), the normalisation (one op, or one with a ReLU that
// reads it: see graphOps.relu), and for its gradient a per-channel
// reduction and one pass for x's gradient, which includes the paths
// through the mean and variance. The reference is about twenty
// Gorgonia ops, most of which clone a tensor as large as x and run on one
// core.
func (o *graphOps) BatchNormalize(x, gamma, beta backend.Value, eps float64) (y, mean, variance backend.Value, err error) {
	xn := node(x)
	xs := x.Shape()
	c := xs[len(xs)-1]
	dt := o.dtype
	stats, err := newHostOp("BatchMoments", tensor.Shape{2 * c}, dt, []*G.Node{xn}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.BatchMoments(f32(in[0]), d) }),
			func64(func(d []float64) { kernels.BatchMoments(f64(in[0]), d) }))
	}).apply(xn)
	if err != nil {
		return nil, nil, nil, err
	}
	inputs, wrt, gammaAt, betaAt := affineInputs([]*G.Node{xn, stats}, []bool{true, false}, gamma, beta)
	bn := batchNorm{inputs: inputs, wrt: wrt, gammaAt: gammaAt, betaAt: betaAt, eps: eps, c: c, dtype: dt}
	fwd := bn.op(false)
	yN, err := fwd.apply(inputs...)
	if err != nil {
		return nil, nil, nil, err
	}
	if o.batchNorms == nil {
		o.batchNorms = make(map[*G.Node]batchNorm)
	}
	o.batchNorms[yN] = bn
	m, err := part(stats, 0, tensor.Shape{c}, dt)
	if err != nil {
		return nil, nil, nil, err
	}
	v, err := part(stats, c, tensor.Shape{c}, dt)
	if err != nil {
		return nil, nil, nil, err
	}
	return value{yN}, value{m}, value{v}, nil
}

// batchNorm is one normalisation's forward op as BatchNormalize built it:
// its inputs (x, the statistics, then gamma and beta where given), which
// of them are differentiated, and its settings. relu builds it again with
// ReLU in the same pass.
type batchNorm struct {
	inputs          []*G.Node
	wrt             []bool
	gammaAt, betaAt int
	eps             float64
	c               int
	dtype           tensor.Dtype
}

// op returns the normalisation's forward host op, with ReLU applied in the
// same pass where relu is set (its gradient is then ReLU's, then the
// normalisation's of that).
func (bn batchNorm) op(relu bool) *hostOp {
	gammaAt, betaAt, eps, dt := bn.gammaAt, bn.betaAt, bn.eps, bn.dtype
	name, apply32, apply64 := "BatchNormalize", kernels.BatchNormApply[float32], kernels.BatchNormApply[float64]
	if relu {
		name, apply32, apply64 = "BatchNormalizeRelu", kernels.BatchNormApplyRelu[float32], kernels.BatchNormApplyRelu[float64]
	}
	x := bn.inputs[0]
	fwd := newHostOp(name, x.Shape().Clone(), dt, bn.inputs, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) {
			apply32(f32(in[0]), f32(in[1]), optional32(in, gammaAt), optional32(in, betaAt), eps, d)
		}), func64(func(d []float64) {
			apply64(f64(in[0]), f64(in[1]), optional64(in, gammaAt), optional64(in, betaAt), eps, d)
		}))
	})
	fwd.wrt = bn.wrt
	fwd.diff = func(inputs G.Nodes, output, dy *G.Node) (G.Nodes, error) {
		if relu {
			dz, err := reluGrad(output, dy)
			if err != nil {
				return nil, err
			}
			dy = dz
		}
		return bn.grad(inputs, dy)
	}
	return fwd
}

// grad returns the gradients of the normalisation's differentiated inputs
// (x, then gamma and beta where given; nil for the statistics) for the
// gradient dy of its output: a per-channel reduction, then one pass for
// x's gradient, which includes the paths through the mean and variance.
func (bn batchNorm) grad(inputs G.Nodes, dy *G.Node) (G.Nodes, error) {
	gammaAt, betaAt, eps, c, dt := bn.gammaAt, bn.betaAt, bn.eps, bn.c, bn.dtype
	x, stats := inputs[0], inputs[1]
	sums, err := newHostOp("BatchNormGradReduce", tensor.Shape{2 * c}, dt, []*G.Node{x, stats, dy}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.BatchNormGradReduce(f32(in[0]), f32(in[1]), f32(in[2]), eps, d) }),
			func64(func(d []float64) { kernels.BatchNormGradReduce(f64(in[0]), f64(in[1]), f64(in[2]), eps, d) }))
	}).apply(x, stats, dy)
	if err != nil {
		return nil, err
	}
	gradIn := []*G.Node{x, stats, dy, sums}
	gammaIn := -1
	if gammaAt >= 0 {
		gammaIn = len(gradIn)
		gradIn = append(gradIn, inputs[gammaAt])
	}
	dx, err := newHostOp("BatchNormGradInput", x.Shape().Clone(), dt, gradIn, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) {
			kernels.BatchNormGradInput(f32(in[0]), f32(in[1]), optional32(in, gammaIn), f32(in[2]), f32(in[3]), eps, d)
		}), func64(func(d []float64) {
			kernels.BatchNormGradInput(f64(in[0]), f64(in[1]), optional64(in, gammaIn), f64(in[2]), f64(in[3]), eps, d)
		}))
	}).apply(gradIn...)
	if err != nil {
		return nil, err
	}
	return affineGrads(G.Nodes{dx, nil}, sums, c, gammaAt, betaAt, dt)
}

// batchNormRelu is ReLU of a normalisation's output, in the
// normalisation's pass.
func batchNormRelu(bn batchNorm) (*G.Node, error) { return bn.op(true).apply(bn.inputs...) }

// optional32 and optional64 return input i's data, or nil for an absent
// input (i < 0: no gamma, no beta).
func optional32(in []*tensor.Dense, i int) []float32 {
	if i < 0 {
		return nil
	}
	return f32(in[i])
}

func optional64(in []*tensor.Dense, i int) []float64 {
	if i < 0 {
		return nil
	}
	return f64(in[i])
}

// affineInputs appends gamma and beta, where given, to a normalisation's
// inputs and differentiation flags, and says where they went (-1: absent).
func affineInputs(inputs []*G.Node, wrt []bool, gamma, beta backend.Value) (_ []*G.Node, _ []bool, gammaAt, betaAt int) {
	gammaAt, betaAt = -1, -1
	if gamma != nil {
		gammaAt = len(inputs)
		inputs, wrt = append(inputs, node(gamma)), append(wrt, true)
	}
	if beta != nil {
		betaAt = len(inputs)
		inputs, wrt = append(inputs, node(beta)), append(wrt, true)
	}
	return inputs, wrt, gammaAt, betaAt
}

// affineGrads appends the gradients of gamma and beta, where given, from
// a packed (2·C) tensor of their sums: beta's, then gamma's.
func affineGrads(grads G.Nodes, sums *G.Node, c, gammaAt, betaAt int, dt tensor.Dtype) (G.Nodes, error) {
	if gammaAt >= 0 {
		dg, err := part(sums, c, tensor.Shape{c}, dt)
		if err != nil {
			return nil, err
		}
		grads = append(grads, dg)
	}
	if betaAt >= 0 {
		db, err := part(sums, 0, tensor.Shape{c}, dt)
		if err != nil {
			return nil, err
		}
		grads = append(grads, db)
	}
	return grads, nil
}

var _ backend.BatchNormOps = (*graphOps)(nil)
