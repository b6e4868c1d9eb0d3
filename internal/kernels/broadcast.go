package kernels

// Tile fills dst (shape out) by repeating src (shape srcShape, of the same
// rank, with 1 on the axes it repeats).
func Tile[T float32 | float64](dst, src []T, srcShape, out []int) {
	byLeadingAxis(srcShape, out, func(lo, hi, srcRow, outRow int, srcPart, outPart []int) {
		tile(dst[lo*outRow:hi*outRow], src[lo*srcRow:hi*srcRow], srcPart, outPart)
	})
}

// byLeadingAxis runs a broadcast or its adjoint on every core, in ranges
// of the leading axis where the small tensor keeps that axis (each range
// then writes its own part of the output), or in one piece. f gets the
// range, the values per leading index of the small and the full tensor,
// and the two shapes with the range's length in front.
func byLeadingAxis(small, out []int, f func(lo, hi, smallRow, outRow int, smallPart, outPart []int)) {
	n := len(out)
	if n == 0 {
		f(0, 1, 1, 1, small, out)
		return
	}
	smallRow, outRow := 1, 1
	for d := 1; d < n; d++ {
		smallRow *= small[d]
		outRow *= out[d]
	}
	if small[0] != out[0] { // the leading axis is repeated: one piece
		f(0, 1, small[0]*smallRow, out[0]*outRow, small, out)
		return
	}
	parallelRows(out[0], outRow, func(lo, hi int) {
		smallPart, outPart := append([]int{hi - lo}, small[1:]...), append([]int{hi - lo}, out[1:]...)
		f(lo, hi, smallRow, outRow, smallPart, outPart)
	})
}

// tile is Tile on one goroutine.
func tile[T float32 | float64](dst, src []T, srcShape, out []int) {
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
	byLeadingAxis(dstShape, out, func(lo, hi, dstRow, outRow int, dstPart, outPart []int) {
		untile(dst[lo*dstRow:hi*dstRow], src[lo*outRow:hi*outRow], dstPart, outPart)
	})
}

// untile is Untile on one goroutine.
func untile[T float32 | float64](dst, src []T, dstShape, out []int) {
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
