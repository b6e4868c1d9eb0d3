package gorgonia

import (
	"fmt"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
)

// Gather takes rows of the table at the indices (a host kernel); its
// gradient adds the output's gradient into the rows taken (GatherGrad),
// and the indices are not differentiable.
func (o *graphOps) Gather(table, indices backend.Value, out backend.Shape) (backend.Value, error) {
	tn, in := node(table), node(indices)
	ts := backend.Shape(tn.Shape()).Clone()
	rows, width := ts[0], ts.Size()/ts[0]
	op := newHostOp(o.label("Gather"), tensor.Shape(out).Clone(), tn.Dtype(), []*G.Node{tn, in}, func(dst *tensor.Dense, src []*tensor.Dense) error {
		switch d := dst.Data().(type) {
		case []float32:
			return gatherWith(d, f32(src[0]), src[1], rows, width)
		case []float64:
			return gatherWith(d, f64(src[0]), src[1], rows, width)
		}
		return fmt.Errorf("unsupported data %T", dst.Data())
	})
	op.wrt = []bool{true, false}
	op.diff = func(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		back := newHostOp(o.label("GatherGrad"), tensor.Shape(ts).Clone(), tn.Dtype(), []*G.Node{grad, in}, func(dst *tensor.Dense, src []*tensor.Dense) error {
			switch d := dst.Data().(type) {
			case []float32:
				return scatterWith(d, f32(src[0]), src[1], rows, width)
			case []float64:
				return scatterWith(d, f64(src[0]), src[1], rows, width)
			}
			return fmt.Errorf("unsupported data %T", dst.Data())
		})
		g, err := back.apply(grad, in)
		if err != nil {
			return nil, err
		}
		return G.Nodes{g, nil}, nil
	}
	return wrap(op.apply(tn, in))
}

// gatherWith gathers with the indices' own element type.
func gatherWith[T float32 | float64](dst, table []T, idx *tensor.Dense, rows, width int) error {
	switch ix := idx.Data().(type) {
	case []int32:
		return kernels.GatherRows(dst, table, ix, rows, width)
	case []T:
		return kernels.GatherRows(dst, table, ix, rows, width)
	}
	return fmt.Errorf("indices of type %T", idx.Data())
}

// scatterWith is gatherWith's adjoint.
func scatterWith[T float32 | float64](dst, grad []T, idx *tensor.Dense, rows, width int) error {
	switch ix := idx.Data().(type) {
	case []int32:
		return kernels.ScatterAddRows(dst, grad, ix, rows, width)
	case []T:
		return kernels.ScatterAddRows(dst, grad, ix, rows, width)
	}
	return fmt.Errorf("indices of type %T", idx.Data())
}

// Cast turns int32 token ids into the compute dtype (a host kernel; not
// differentiable).
func (o *graphOps) Cast(x backend.Value) (backend.Value, error) {
	n := node(x)
	op := newHostOp("Cast", tensor.Shape(x.Shape()).Clone(), o.dtype, []*G.Node{n}, func(dst *tensor.Dense, src []*tensor.Dense) error {
		ids, ok := src[0].Data().([]int32)
		if !ok {
			return fmt.Errorf("Cast of %T, want int32", src[0].Data())
		}
		switch d := dst.Data().(type) {
		case []float32:
			for i, v := range ids {
				d[i] = float32(v)
			}
		case []float64:
			for i, v := range ids {
				d[i] = float64(v)
			}
		default:
			return fmt.Errorf("unsupported data %T", dst.Data())
		}
		return nil
	})
	return wrap(op.apply(n))
}
