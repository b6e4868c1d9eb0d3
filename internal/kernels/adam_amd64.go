package kernels

// adamMoment32 runs the vector kernel over the longest prefix of dst
// that is a whole number of 8-value blocks and returns its length (0
// without AVX).
func adamMoment32(s, g []float32, rate float32, square bool, dst []float32) int {
	n := len(dst) &^ 7
	if !haveAVX || n == 0 {
		return 0
	}
	_, _ = s[n-1], g[n-1]
	adamMomentAVX(n/8, &s[0], &g[0], &dst[0], rate, square)
	return n
}

// adamStep32 is adamMoment32 for the parameter update.
func adamStep32(p, m, v []float32, alpha, eps float32, dst []float32) int {
	n := len(dst) &^ 7
	if !haveAVX || n == 0 {
		return 0
	}
	_, _, _ = p[n-1], m[n-1], v[n-1]
	adamStepAVX(n/8, &p[0], &m[0], &v[0], &dst[0], alpha, eps)
	return n
}

// adamMomentAVX writes s + (x - s)·rate, x = grad or grad², for blocks blocks
// of 8 values.
//
//go:noescape
func adamMomentAVX(blocks int, s, grad, dst *float32, rate float32, square bool)

// adamStepAVX writes p - (m·alpha) / (sqrt(v) + eps) for blocks blocks
// of 8 values.
//
//go:noescape
func adamStepAVX(blocks int, p, m, v, dst *float32, alpha, eps float32)
