package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Transpose and Slice are host ops that copy (Gorgonia's own return views,
// which later in-place ops can disturb, as its reshape views did); their
// gradients are the inverse copies.

func (o *graphOps) Transpose(x backend.Value, perm []int, out backend.Shape) (backend.Value, error) {
	return wrap(transpose(node(x), perm, out))
}

func transpose(x *G.Node, perm []int, out backend.Shape) (*G.Node, error) {
	in := backend.Shape(x.Shape()).Clone()
	op := newHostOp("Transpose", tensor.Shape(out).Clone(), x.Dtype(), []*G.Node{x}, func(dst *tensor.Dense, src []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.Permute(d, f32(src[0]), in, perm) }),
			func64(func(d []float64) { kernels.Permute(d, f64(src[0]), in, perm) }))
	})
	op.diff = func(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		inverse := make([]int, len(perm))
		for i, p := range perm {
			inverse[p] = i
		}
		g, err := transpose(grad, inverse, in)
		if err != nil {
			return nil, err
		}
		return G.Nodes{g}, nil
	}
	return op.apply(x)
}

func (o *graphOps) Slice(x backend.Value, begin, size []int) (backend.Value, error) {
	return wrap(slice(node(x), begin, size))
}

func slice(x *G.Node, begin, size []int) (*G.Node, error) {
	in := backend.Shape(x.Shape()).Clone()
	op := newHostOp("Slice", tensor.Shape(size).Clone(), x.Dtype(), []*G.Node{x}, func(dst *tensor.Dense, src []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.CopyBlock(d, f32(src[0]), in, begin, size, false) }),
			func64(func(d []float64) { kernels.CopyBlock(d, f64(src[0]), in, begin, size, false) }))
	})
	op.diff = func(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		back := newHostOp("SliceGrad", tensor.Shape(in).Clone(), x.Dtype(), []*G.Node{grad}, func(dst *tensor.Dense, src []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) { clear(d); kernels.CopyBlock(f32(src[0]), d, in, begin, size, true) }),
				func64(func(d []float64) { clear(d); kernels.CopyBlock(f64(src[0]), d, in, begin, size, true) }))
		})
		g, err := back.apply(grad)
		if err != nil {
			return nil, err
		}
		return G.Nodes{g}, nil
	}
	return op.apply(x)
}
