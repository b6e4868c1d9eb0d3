package kernels

import "math"

// AdamMoment writes Adam's moment update s + (x - s)·rate into dst, with
// x = g, or g² if square (Keras 3's m' and v').
func AdamMoment[T float32 | float64](s, g []T, rate T, square bool, dst []T) {
	ParallelChunks(len(dst), func(lo, hi int) {
		for i, gi := range g[lo:hi] {
			if square {
				gi *= gi
			}
			si := s[lo+i]
			dst[lo+i] = si + (gi-si)*rate
		}
	})
}

// AdamStep writes Adam's parameter update p - alpha·m / (sqrt(v) + eps)
// into dst.
func AdamStep[T float32 | float64](p, m, v []T, alpha, eps T, dst []T) {
	ParallelChunks(len(dst), func(lo, hi int) {
		for i, pi := range p[lo:hi] {
			dst[lo+i] = pi - m[lo+i]*alpha/(sqrt(v[lo+i])+eps)
		}
	})
}

// sqrt in T (for float32, the float64 root rounded once, which is the
// correctly rounded float32 root).
func sqrt[T float32 | float64](x T) T { return T(math.Sqrt(float64(x))) }
