package kernels

// Dropout as three passes: the mask from the engine's generator (one
// goroutine, so a seeded generator gives the same mask whatever the
// number of workers), then the masked product and its gradient on every
// core. The products associate as the reference ops do, x·keep·scale
// forward and dy·scale·keep backward, so the values are the same to the
// last bit (a NaN or infinity that is dropped stays NaN, as x·0 is).

// DropoutMask fills keep with 1 where next() > rate and 0 elsewhere, one
// draw per value in order.
func DropoutMask[T float32 | float64](keep []T, rate T, next func() T) {
	for i := range keep {
		if next() > rate {
			keep[i] = 1
		} else {
			keep[i] = 0
		}
	}
}

// DropoutApply writes (x·keep)·scale into y.
func DropoutApply[T float32 | float64](x, keep []T, scale T, y []T) {
	parallelChunks(len(y), minPerWorker, func(lo, hi int) {
		for i, v := range x[lo:hi] {
			y[lo+i] = v * keep[lo+i] * scale
		}
	})
}

// DropoutGrad writes (dy·scale)·keep, x's gradient, into dx.
func DropoutGrad[T float32 | float64](dy, keep []T, scale T, dx []T) {
	parallelChunks(len(dx), minPerWorker, func(lo, hi int) {
		for i, g := range dy[lo:hi] {
			dx[lo+i] = g * scale * keep[lo+i]
		}
	})
}
