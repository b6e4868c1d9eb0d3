package gorgonia

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// CustomGradient is forward passed through a host op that copies it and
// whose gradient is vjp's: the op's DiffWRT leaves forward out, so
// Gorgonia's differentiation does not go through forward, and its
// SymDiff builds vjp's gradient nodes from the result's gradient. Host
// ops take no scalars, so a scalar forward goes through as one value.
func (o *graphOps) CustomGradient(inputs []backend.Value, forward backend.Value, vjp func(backend.Value) ([]backend.Value, error)) (backend.Value, error) {
	f := node(forward)
	scalar := f.IsScalar()
	if scalar {
		var err error
		if f, err = reshape(f, tensor.Shape{1}); err != nil {
			return nil, err
		}
	}
	ins := make([]*G.Node, 0, len(inputs)+1)
	ins = append(ins, f)
	wrt := []bool{false}
	for _, in := range inputs {
		ins = append(ins, node(in))
		wrt = append(wrt, true)
	}
	op := newHostOp(o.label("CustomGradient"), f.Shape().Clone(), f.Dtype(), ins, func(dst *tensor.Dense, in []*tensor.Dense) error {
		if err := sameDType(in[0], dst); err != nil {
			return err
		}
		return floats(dst, func32(func(d []float32) { copy(d, f32(in[0])) }), func64(func(d []float64) { copy(d, f64(in[0])) }))
	})
	op.wrt = wrt
	op.diff = func(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		if scalar {
			var err error
			if grad, err = reshape(grad, tensor.ScalarShape()); err != nil {
				return nil, err
			}
		}
		gs, err := vjp(value{n: grad})
		if err != nil {
			return nil, err
		}
		out := make(G.Nodes, 1, len(gs)+1)
		for _, g := range gs {
			out = append(out, node(g))
		}
		return out, nil
	}
	y, err := op.apply(ins...)
	if err == nil && scalar {
		y, err = reshape(y, tensor.ScalarShape())
	}
	return wrap(y, err)
}
