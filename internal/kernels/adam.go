package kernels

import "math"

// AdamMoment writes Adam's moment update s + (x - s)·rate into dst, with
// x = g, or g² if square (Keras 3's m' and v').
func AdamMoment[T float32 | float64](s, g []T, rate T, square bool, dst []T) {
	parallelChunks(len(dst), minPerWorker, func(lo, hi int) { adamMoment(s[lo:hi], g[lo:hi], rate, square, dst[lo:hi]) })
}

// AdamStep writes Adam's parameter update p - alpha·m / (sqrt(v) + eps)
// into dst.
func AdamStep[T float32 | float64](p, m, v []T, alpha, eps T, dst []T) {
	parallelChunks(len(dst), minPerWorker, func(lo, hi int) { adamStep(p[lo:hi], m[lo:hi], v[lo:hi], alpha, eps, dst[lo:hi]) })
}

// adamMoment is AdamMoment on one range: float32 through the vector
// kernel where the CPU has it (every value rounded as below, so the
// results are the same to the bit), the rest in Go. The conversions
// round each product, as the vector kernel does: without them Go may
// fuse a multiply and an add (GOAMD64=v3 does).
func adamMoment[T float32 | float64](s, g []T, rate T, square bool, dst []T) {
	if d, ok := any(dst).([]float32); ok {
		done := adamMoment32(any(s).([]float32), any(g).([]float32), float32(rate), square, d)
		s, g, dst = s[done:], g[done:], dst[done:]
	}
	g = g[:len(dst)]
	s = s[:len(dst)]
	for i, gi := range g {
		if square {
			gi = T(gi * gi)
		}
		si := s[i]
		dst[i] = si + T((gi-si)*rate)
	}
}

// adamStep is AdamStep on one range, as adamMoment.
func adamStep[T float32 | float64](p, m, v []T, alpha, eps T, dst []T) {
	if d, ok := any(dst).([]float32); ok {
		done := adamStep32(any(p).([]float32), any(m).([]float32), any(v).([]float32), float32(alpha), float32(eps), d)
		p, m, v, dst = p[done:], m[done:], v[done:], dst[done:]
	}
	p = p[:len(dst)]
	m = m[:len(dst)]
	v = v[:len(dst)]
	for i, pi := range p {
		dst[i] = pi - T(m[i]*alpha)/(sqrt(v[i])+eps)
	}
}

// sqrt in T (for float32, the float64 root rounded once, which is the
// correctly rounded float32 root).
func sqrt[T float32 | float64](x T) T { return T(math.Sqrt(float64(x))) }
