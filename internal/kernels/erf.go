package kernels

import "math"

// Erf writes the error function of x into y, computed in float64 and
// rounded once for float32.
func Erf[T float32 | float64](x, y []T) {
	parallelChunks(len(y), minPerWorker, func(lo, hi int) {
		for i, v := range x[lo:hi] {
			y[lo+i] = T(math.Erf(float64(v)))
		}
	})
}
