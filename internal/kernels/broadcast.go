package kernels

// Tile fills dst (shape out) by repeating src (shape srcShape, of the same
// rank, with 1 on the axes it repeats).
func Tile[T float32 | float64](dst, src []T, srcShape, out []int) {
	n := len(out)
	strides := broadcastStrides(srcShape)
	last := out[n-1]
	idx := make([]int, n)
	off := 0
	for o := 0; o < len(dst); o += last {
		if strides[n-1] == 0 {
			v := src[off]
			for j := range last {
				dst[o+j] = v
			}
		} else {
			copy(dst[o:o+last], src[off:off+last])
		}
		off = nextOffset(idx, off, strides, out)
	}
}

// Untile is Tile's adjoint: it sums src (shape out) into dst (shape
// dstShape, with 1 on the axes Tile repeated).
func Untile[T float32 | float64](dst, src []T, dstShape, out []int) {
	clear(dst)
	n := len(out)
	strides := broadcastStrides(dstShape)
	last := out[n-1]
	idx := make([]int, n)
	off := 0
	for o := 0; o < len(src); o += last {
		if strides[n-1] == 0 {
			var sum T
			for j := range last {
				sum += src[o+j]
			}
			dst[off] += sum
		} else {
			row := dst[off : off+last]
			for j, v := range src[o : o+last] {
				row[j] += v
			}
		}
		off = nextOffset(idx, off, strides, out)
	}
}

// broadcastStrides are the row-major strides of shape, 0 on its size-1
// axes (the repeated ones).
func broadcastStrides(shape []int) []int {
	strides := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] != 1 {
			strides[i] = acc
		}
		acc *= shape[i]
	}
	return strides
}

// nextOffset advances the index idx over every axis of out but the last
// (an odometer) and returns the matching offset into the small tensor.
func nextOffset(idx []int, off int, strides, out []int) int {
	for d := len(out) - 2; d >= 0; d-- {
		idx[d]++
		off += strides[d]
		if idx[d] < out[d] {
			break
		}
		off -= strides[d] * out[d]
		idx[d] = 0
	}
	return off
}
