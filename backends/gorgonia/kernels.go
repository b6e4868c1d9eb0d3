package gorgonia

import (
	"fmt"
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras/backend"
	"gorgonia.org/tensor"
)

// withFloats2 calls f with the backing slices of in and out, which must share
// a float dtype.
func withFloats2(in, out *tensor.Dense, f func(in, out any) error) error {
	if in.Dtype() != out.Dtype() {
		return fmt.Errorf("dtype mismatch: %v and %v", in.Dtype(), out.Dtype())
	}
	return f(in.Data(), out.Data())
}

func argMaxLastAxis(in, out any) error {
	switch x := in.(type) {
	case []float32:
		argMax(x, out.([]float32))
	case []float64:
		argMax(x, out.([]float64))
	default:
		return fmt.Errorf("ArgMax: unsupported data %T", in)
	}
	return nil
}

func argMax[T float32 | float64](x, out []T) {
	n := len(x) / len(out)
	for r := range out {
		row := x[r*n : (r+1)*n]
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		out[r] = T(best)
	}
}

func oneHot(idx, hot any, depth int) error {
	switch x := idx.(type) {
	case []float32:
		return oneHotT(x, hot.([]float32), depth)
	case []float64:
		return oneHotT(x, hot.([]float64), depth)
	}
	return fmt.Errorf("OneHot: unsupported data %T", idx)
}

func oneHotT[T float32 | float64](idx, hot []T, depth int) error {
	clear(hot)
	for i, v := range idx {
		c := int(v)
		if c < 0 || c >= depth || T(c) != v {
			return fmt.Errorf("label %v at position %d is not a class index in [0, %d)", v, i, depth)
		}
		hot[i*depth+c] = 1
	}
	return nil
}

func fillUniform(data any, rng *rand.Rand) {
	switch x := data.(type) {
	case []float32:
		for i := range x {
			x[i] = rng.Float32()
		}
	case []float64:
		for i := range x {
			x[i] = rng.Float64()
		}
	}
}

func fillNormal(data any, rng *rand.Rand) {
	switch x := data.(type) {
	case []float32:
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
	case []float64:
		for i := range x {
			x[i] = rng.NormFloat64()
		}
	}
}

// tileInto fills dst (shape out) by repeating src (shape srcShape, same
// rank, size-1 axes repeated).
func tileInto(dst, src any, srcShape []int, out backend.Shape) error {
	switch d := dst.(type) {
	case []float32:
		s, ok := src.([]float32)
		if !ok {
			return fmt.Errorf("BroadcastTo: source is %T, want []float32", src)
		}
		tile(d, s, srcShape, out)
	case []float64:
		s, ok := src.([]float64)
		if !ok {
			return fmt.Errorf("BroadcastTo: source is %T, want []float64", src)
		}
		tile(d, s, srcShape, out)
	default:
		return fmt.Errorf("BroadcastTo: unsupported data %T", dst)
	}
	return nil
}

func tile[T float32 | float64](dst, src []T, srcShape []int, out backend.Shape) {
	n := len(out)
	strides := make([]int, n) // 0 on repeated axes
	acc := 1
	for i := n - 1; i >= 0; i-- {
		if srcShape[i] != 1 {
			strides[i] = acc
		}
		acc *= srcShape[i]
	}
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
		for d := n - 2; d >= 0; d-- {
			idx[d]++
			off += strides[d]
			if idx[d] < out[d] {
				break
			}
			off -= strides[d] * out[d]
			idx[d] = 0
		}
	}
}

// untile is tile's adjoint: it sums src (shape out) into dst (shape
// dstShape, 1 on the axes tile repeated).
func untile[T float32 | float64](dst, src []T, dstShape []int, out backend.Shape) {
	clear(dst)
	n := len(out)
	strides := make([]int, n) // 0 on repeated axes
	acc := 1
	for i := n - 1; i >= 0; i-- {
		if dstShape[i] != 1 {
			strides[i] = acc
		}
		acc *= dstShape[i]
	}
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
		for d := n - 2; d >= 0; d-- {
			idx[d]++
			off += strides[d]
			if idx[d] < out[d] {
				break
			}
			off -= strides[d] * out[d]
			idx[d] = 0
		}
	}
}
