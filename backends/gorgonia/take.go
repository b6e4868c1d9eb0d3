package gorgonia

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
)

// TakeAlongLastAxis implements backend.TakeOps with a host kernel that
// reads one value per row (kernels.TakeAlongRows); its gradient writes
// the output's gradient back there in a zeroed tensor of x's shape
// (kernels.PutAlongRows), one pass instead of the reference's one-hot
// product and its gradients. The indices are not differentiable.
func (o *graphOps) TakeAlongLastAxis(x, indices backend.Value) (backend.Value, error) {
	xn, in := node(x), node(indices)
	xs := backend.Shape(xn.Shape()).Clone()
	n := xs[len(xs)-1]
	op := newHostOp(o.label("TakeAlongLastAxis"), tensor.Shape(indices.Shape()).Clone(), xn.Dtype(), []*G.Node{xn, in}, func(dst *tensor.Dense, src []*tensor.Dense) error {
		switch d := dst.Data().(type) {
		case []float32:
			return kernels.TakeAlongRows(d, f32(src[0]), f32(src[1]), n)
		case []float64:
			return kernels.TakeAlongRows(d, f64(src[0]), f64(src[1]), n)
		}
		return fmt.Errorf("unsupported data %T", dst.Data())
	})
	op.wrt = []bool{true, false}
	op.diff = func(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		back := newHostOp(o.label("TakeAlongLastAxisGrad"), tensor.Shape(xs).Clone(), xn.Dtype(), []*G.Node{grad, in}, func(dst *tensor.Dense, src []*tensor.Dense) error {
			switch d := dst.Data().(type) {
			case []float32:
				return kernels.PutAlongRows(d, f32(src[0]), f32(src[1]), n)
			case []float64:
				return kernels.PutAlongRows(d, f64(src[0]), f64(src[1]), n)
			}
			return fmt.Errorf("unsupported data %T", dst.Data())
		})
		g, err := back.apply(grad, in)
		if err != nil {
			return nil, err
		}
		return G.Nodes{g, nil}, nil
	}
	return wrap(op.apply(xn, in))
}

var _ backend.TakeOps = (*graphOps)(nil)
