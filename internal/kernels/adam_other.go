//go:build !amd64

package kernels

// Without the amd64 vector kernels everything runs in Go.
func adamMoment32(s, g []float32, rate float32, square bool, dst []float32) int { return 0 }
func adamStep32(p, m, v []float32, alpha, eps float32, dst []float32) int       { return 0 }
