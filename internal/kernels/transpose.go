package kernels

import "github.com/kerasgo/kerasgo/keras/backend"

// Permute writes src (shape in) transposed by perm into dst. Where perm
// keeps the last axis last, it copies runs of that axis whole; the
// first axis of dst is split among the workers.
func Permute[T float32 | float64](dst, src []T, in backend.Shape, perm []int) {
	rank := len(in)
	if rank == 0 || len(dst) == 0 {
		copy(dst, src)
		return
	}
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
	dims := make([]int, rank)
	for i, p := range perm {
		dims[i] = in[p]
	}
	run := 1 // values copied at once: the last axis, if it stays last
	if perm[rank-1] == rank-1 {
		run, dims, strides = in[rank-1], dims[:rank-1], strides[:rank-1]
	}
	if len(dims) == 0 {
		copy(dst, src)
		return
	}
	per := len(dst) / dims[0]
	parallelRows(dims[0], per, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			permuteRuns(dst[i*per:(i+1)*per], src, i*strides[0], dims[1:], strides[1:], run)
		}
	})
}

// permuteRuns fills dst with runs of run values of src, the first at
// off, the next ones stepping through dims (an odometer, last axis
// fastest) with the given strides.
func permuteRuns[T float32 | float64](dst, src []T, off int, dims, strides []int, run int) {
	idx := make([]int, len(dims))
	for o := 0; o < len(dst); o += run {
		if run == 1 {
			dst[o] = src[off]
		} else {
			copy(dst[o:o+run], src[off:off+run])
		}
		for d := len(dims) - 1; d >= 0; d-- {
			idx[d]++
			off += strides[d]
			if idx[d] < dims[d] {
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
