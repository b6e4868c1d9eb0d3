package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// AdamUpdate implements backend.AdamOps with three one-pass host ops (m',
// v', then p') instead of the reference's dozen Gorgonia ops, each of which
// clones its operand. Scalar parameters take the reference composition.
func (o *graphOps) AdamUpdate(p, g, m, v, alpha backend.Value, beta1, beta2, eps float64) (newP, newM, newV backend.Value, err error) {
	if len(p.Shape()) == 0 {
		b := backend.NewBuilder(o)
		newP, newM, newV = backend.AdamReference(b, p, g, m, v, alpha, beta1, beta2, eps)
		return newP, newM, newV, b.Err()
	}
	shape := node(p).Shape().Clone()
	moment := func(name string, state backend.Value, rate float64, square bool) (*G.Node, error) {
		op := newHostOp(name, shape, o.dtype, []*G.Node{node(state), node(g)}, func(dst *tensor.Dense, in []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) { kernels.AdamMoment(f32(in[0]), f32(in[1]), float32(rate), square, d) }),
				func64(func(d []float64) { kernels.AdamMoment(f64(in[0]), f64(in[1]), rate, square, d) }))
		})
		return op.apply(node(state), node(g))
	}
	m2, err := moment("AdamFirstMoment", m, 1-beta1, false)
	if err != nil {
		return nil, nil, nil, err
	}
	v2, err := moment("AdamSecondMoment", v, 1-beta2, true)
	if err != nil {
		return nil, nil, nil, err
	}
	step := newHostOp("AdamStep", shape, o.dtype, []*G.Node{node(p), m2, v2, node(alpha)}, nil)
	step.kernel = func(dst *tensor.Dense, in []*tensor.Dense) error {
		a := step.scalars[3]
		return floats(dst, func32(func(d []float32) { kernels.AdamStep(f32(in[0]), f32(in[1]), f32(in[2]), float32(a), float32(eps), d) }),
			func64(func(d []float64) { kernels.AdamStep(f64(in[0]), f64(in[1]), f64(in[2]), a, eps, d) }))
	}
	p2, err := step.apply(node(p), m2, v2, node(alpha))
	if err != nil {
		return nil, nil, nil, err
	}
	return value{p2}, value{m2}, value{v2}, nil
}

var _ backend.AdamOps = (*graphOps)(nil)

// SGDUpdate implements backend.SGDOps with one one-pass host op, p -
// lr·g, instead of Gorgonia's product and difference. Scalar parameters
// take the reference composition.
func (o *graphOps) SGDUpdate(p, g, lr backend.Value) (backend.Value, error) {
	if len(p.Shape()) == 0 {
		b := backend.NewBuilder(o)
		newP := backend.SGDReference(b, p, g, lr)
		return newP, b.Err()
	}
	shape := node(p).Shape().Clone()
	step := newHostOp("SGDStep", shape, o.dtype, []*G.Node{node(p), node(g), node(lr)}, nil)
	step.kernel = func(dst *tensor.Dense, in []*tensor.Dense) error {
		rate := step.scalars[2]
		return floats(dst, func32(func(d []float32) { kernels.SGDStep(d, f32(in[0]), f32(in[1]), float32(rate)) }),
			func64(func(d []float64) { kernels.SGDStep(d, f64(in[0]), f64(in[1]), rate) }))
	}
	p2, err := step.apply(node(p), node(g), node(lr))
	if err != nil {
		return nil, err
	}
	return value{p2}, nil
}

var _ backend.SGDOps = (*graphOps)(nil)
