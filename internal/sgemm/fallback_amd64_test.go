package sgemm

import (
	"math/rand/v2"
	"testing"
)

// Without the kernel (as on a CPU lacking AVX2/FMA), Gemm gives gonum's
// result.
func TestGemmFallback(t *testing.T) {
	saved := haveKernel
	haveKernel = false
	defer func() { haveKernel = saved }()
	r := rand.New(rand.NewPCG(3, 4))
	a, b, c := random(r, 7*5), random(r, 5*9), random(r, 7*9)
	want := naive(false, true, 7, 9, 5, 0.5, a, 5, b, 5, 2, c, 9)
	Gemm(false, true, 7, 9, 5, 0.5, a, 5, b, 5, 2, c, 9)
	for i := range want {
		if d := c[i] - want[i]; d > 1e-4 || d < -1e-4 {
			t.Fatalf("c[%d] = %v, want %v", i, c[i], want[i])
		}
	}
}
