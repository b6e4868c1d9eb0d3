package gorgonia

import (
	"fmt"
	"math"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Gather takes rows of the table at the indices (a host kernel); its
// gradient adds the output's gradient into the rows taken (GatherGrad),
// and the indices are not differentiable.
func (o *graphOps) Gather(table, indices backend.Value, out backend.Shape) (backend.Value, error) {
	tn, in := node(table), node(indices)
	ts := backend.Shape(tn.Shape()).Clone()
	rows, width := ts[0], ts.Size()/ts[0]
	op := newHostOp("Gather", tensor.Shape(out).Clone(), tn.Dtype(), []*G.Node{tn, in}, func(dst *tensor.Dense, src []*tensor.Dense) error {
		switch d := dst.Data().(type) {
		case []float32:
			return gatherRows(d, f32(src[0]), f32(src[1]), rows, width)
		case []float64:
			return gatherRows(d, f64(src[0]), f64(src[1]), rows, width)
		}
		return fmt.Errorf("unsupported data %T", dst.Data())
	})
	op.wrt = []bool{true, false}
	op.diff = func(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		back := newHostOp("GatherGrad", tensor.Shape(ts).Clone(), tn.Dtype(), []*G.Node{grad, in}, func(dst *tensor.Dense, src []*tensor.Dense) error {
			switch d := dst.Data().(type) {
			case []float32:
				return scatterAddRows(d, f32(src[0]), f32(src[1]), rows, width)
			case []float64:
				return scatterAddRows(d, f64(src[0]), f64(src[1]), rows, width)
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

// row returns the table row an index names, or an error if it is outside
// [0, rows) (or not a number).
func row[T float32 | float64](v T, rows int) (int, error) {
	f := math.Trunc(float64(v))
	if !(f >= 0 && f < float64(rows)) {
		return 0, fmt.Errorf("index %v is outside [0, %d)", v, rows)
	}
	return int(f), nil
}

func gatherRows[T float32 | float64](dst, table, idx []T, rows, width int) error {
	for i, v := range idx {
		r, err := row(v, rows)
		if err != nil {
			return err
		}
		copy(dst[i*width:(i+1)*width], table[r*width:(r+1)*width])
	}
	return nil
}

func scatterAddRows[T float32 | float64](dst, grad, idx []T, rows, width int) error {
	clear(dst)
	for i, v := range idx {
		r, err := row(v, rows)
		if err != nil {
			return err
		}
		d, g := dst[r*width:(r+1)*width], grad[i*width:(i+1)*width]
		for j := range d {
			d[j] += g[j]
		}
	}
	return nil
}
