package kernels

import "github.com/kerasgo/kerasgo/keras/backend"

// Permute writes src (shape in) transposed by perm into dst.
func Permute[T float32 | float64](dst, src []T, in backend.Shape, perm []int) {
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

// CopyBlock copies the block of whole (shape in) at begin of shape size to
// block (contiguous), or, with back, block into whole.
func CopyBlock[T float32 | float64](block, whole []T, in backend.Shape, begin, size []int, back bool) {
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
