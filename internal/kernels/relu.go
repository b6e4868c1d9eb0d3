package kernels

import "math"

// ReluForward writes max(x, 0) into y.
func ReluForward[T float32 | float64](x, y []T) {
	parallelChunks(len(y), minPerWorker, func(lo, hi int) {
		for i, v := range x[lo:hi] {
			y[lo+i] = max(v, 0)
		}
	})
}

// AddRowsRelu writes max(x + bias, 0) into dst, bias repeating over the
// rows of x (rows of len(bias) values): AddRows then ReluForward in one
// pass, with the same values.
func AddRowsRelu[T float32 | float64](x, bias, dst []T) {
	n := len(bias)
	parallelRows(len(dst)/n, n, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			row, out := x[r*n:(r+1)*n], dst[r*n:(r+1)*n]
			for i, v := range row {
				out[i] = max(T(v+bias[i]), 0)
			}
		}
	})
}

// ReluGrad writes dy where the output y is positive, 0 elsewhere (at 0,
// -0 and NaN too), into dx. It selects with bit masks rather than a
// branch: ReLU's outputs are positive about half the time at random, and
// the mispredicted branches made it five times slower.
func ReluGrad[T float32 | float64](y, dy, dx []T) {
	parallelChunks(len(dx), minPerWorker, func(lo, hi int) {
		switch yv := any(y).(type) {
		case []float32:
			reluGrad32(yv[lo:hi], any(dy).([]float32)[lo:hi], any(dx).([]float32)[lo:hi])
		case []float64:
			reluGrad64(yv[lo:hi], any(dy).([]float64)[lo:hi], any(dx).([]float64)[lo:hi])
		}
	})
}

func reluGrad32(y, dy, dx []float32) {
	dy, dx = dy[:len(y)], dx[:len(y)]
	for i, v := range y {
		b := math.Float32bits(v)
		mag := b & 0x7FFFFFFF
		nonzero := uint32(-int32(mag) >> 31)       // all ones unless ±0
		negative := uint32(int32(b) >> 31)         // all ones where the sign is set
		nan := uint32(int32(0x7F800000-mag) >> 31) // all ones for NaN
		dx[i] = math.Float32frombits(math.Float32bits(dy[i]) & (nonzero &^ negative &^ nan))
	}
}

func reluGrad64(y, dy, dx []float64) {
	dy, dx = dy[:len(y)], dx[:len(y)]
	for i, v := range y {
		b := math.Float64bits(v)
		mag := b & 0x7FFFFFFFFFFFFFFF
		nonzero := uint64(-int64(mag) >> 63)
		negative := uint64(int64(b) >> 63)
		nan := uint64(int64(0x7FF0000000000000-mag) >> 63)
		dx[i] = math.Float64frombits(math.Float64bits(dy[i]) & (nonzero &^ negative &^ nan))
	}
}
