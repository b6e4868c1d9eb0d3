package gorgonia

import (
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
		return floats(dst, func32(func(d []float32) { permute(d, f32(src[0]), in, perm) }),
			func64(func(d []float64) { permute(d, f64(src[0]), in, perm) }))
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

// permute writes src (shape in) transposed by perm into dst.
func permute[T float32 | float64](dst, src []T, in backend.Shape, perm []int) {
	rank := len(in)
	strides := make([]int, rank) // of src, in the order of dst's axes
	stride := 1
	for d := rank - 1; d >= 0; d-- {
		for i, p := range perm {
			if p == d {
				strides[i] = stride
			}
		}
		stride *= in[d]
	}
	outDims := make([]int, rank)
	for i, p := range perm {
		outDims[i] = in[p]
	}
	idx := make([]int, rank)
	off := 0
	for i := range dst {
		dst[i] = src[off]
		for d := rank - 1; d >= 0; d-- { // odometer
			idx[d]++
			off += strides[d]
			if idx[d] < outDims[d] {
				break
			}
			off -= strides[d] * idx[d]
			idx[d] = 0
		}
	}
}

func (o *graphOps) Slice(x backend.Value, begin, size []int) (backend.Value, error) {
	return wrap(slice(node(x), begin, size))
}

func slice(x *G.Node, begin, size []int) (*G.Node, error) {
	in := backend.Shape(x.Shape()).Clone()
	op := newHostOp("Slice", tensor.Shape(size).Clone(), x.Dtype(), []*G.Node{x}, func(dst *tensor.Dense, src []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { copyBlock(d, f32(src[0]), in, begin, size, false) }),
			func64(func(d []float64) { copyBlock(d, f64(src[0]), in, begin, size, false) }))
	})
	op.diff = func(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		back := newHostOp("SliceGrad", tensor.Shape(in).Clone(), x.Dtype(), []*G.Node{grad}, func(dst *tensor.Dense, src []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) { clear(d); copyBlock(f32(src[0]), d, in, begin, size, true) }),
				func64(func(d []float64) { clear(d); copyBlock(f64(src[0]), d, in, begin, size, true) }))
		})
		g, err := back.apply(grad)
		if err != nil {
			return nil, err
		}
		return G.Nodes{g}, nil
	}
	return op.apply(x)
}

// copyBlock copies the block of whole (shape in) at begin of shape size to
// block (contiguous), or, with back, block into whole.
func copyBlock[T float32 | float64](block, whole []T, in backend.Shape, begin, size []int, back bool) {
	rank := len(in)
	row := size[rank-1] // copy innermost rows at once
	idx := make([]int, rank)
	for i := 0; i < len(block); i += row {
		off := 0
		for d := 0; d < rank; d++ {
			off = off*in[d] + begin[d] + idx[d]
		}
		if back {
			copy(whole[off:off+row], block[i:i+row])
		} else {
			copy(block[i:i+row], whole[off:off+row])
		}
		for d := rank - 2; d >= 0; d-- {
			idx[d]++
			if idx[d] < size[d] {
				break
			}
			idx[d] = 0
		}
	}
}
