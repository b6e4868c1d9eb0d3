package kernels

import "math/rand/v2"

// Dropout as three passes: the mask from the engine's generator (on
// every core with DropoutMaskFrom, each range drawing from the generator
// moved ahead to its start, so a seeded generator gives the same mask
// whatever the number of workers), then the masked product and its
// gradient on every core. The products associate as the reference ops do, x·keep·scale
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

// DropoutMaskFrom is DropoutMask with next the Float32 (or Float64) of a
// rand.Rand on src, on every core: each range of keep draws from a copy
// of src moved ahead to where the range starts, so the mask is the one
// drawn in order, and src is left where drawing in order leaves it.
func DropoutMaskFrom[T float32 | float64](keep []T, rate T, src *rand.PCG) {
	start := pcgState(src)
	var zero T
	_, single := any(zero).(float32)
	parallelChunks(len(keep), minPerWorker, func(lo, hi int) {
		var p rand.PCG
		setPCGState(&p, pcgAdvance(start, uint64(lo)))
		for i := lo; i < hi; i++ {
			// rand.Rand's Float32 and Float64 from one draw each, without
			// its interface call.
			u := p.Uint64()
			v := T(float64(u<<11>>11) / (1 << 53))
			if single {
				v = T(float32(uint32(u>>32)<<8>>8) / (1 << 24))
			}
			if v > rate {
				keep[i] = 1
			} else {
				keep[i] = 0
			}
		}
	})
	setPCGState(src, pcgAdvance(start, uint64(len(keep))))
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
