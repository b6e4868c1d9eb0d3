package kernels

// ReluForward writes max(x, 0) into y.
func ReluForward[T float32 | float64](x, y []T) {
	ParallelChunks(len(y), func(lo, hi int) {
		for i, v := range x[lo:hi] {
			y[lo+i] = max(v, 0)
		}
	})
}

// ReluGrad writes dy where the output y is positive, 0 elsewhere, into
// dx.
func ReluGrad[T float32 | float64](y, dy, dx []T) {
	ParallelChunks(len(dx), func(lo, hi int) {
		for i, v := range y[lo:hi] {
			if v > 0 {
				dx[lo+i] = dy[lo+i]
			} else {
				dx[lo+i] = 0
			}
		}
	})
}
