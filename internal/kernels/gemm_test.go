package kernels

import (
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// BatchGemm computes what one Gemm per product computes, to the bit,
// whether it shares the batch among the cores (many products) or runs
// each product on every core (few).
func TestBatchGemmEqualsOneGemmPerProduct(t *testing.T) {
	const m, n, k = 37, 45, 29
	for _, batch := range []int{1, 3, 4 * runtime.GOMAXPROCS(0)} {
		for _, ta := range []blas.Transpose{blas.NoTrans, blas.Trans} {
			for _, tb := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				a, b := float32s(randoms(batch*m*k, 31)), float32s(randoms(batch*k*n, 32))
				got := make([]float32, batch*m*n)
				BatchGemm(ta, tb, batch, m, n, k, a, b, got)
				want := make([]float32, batch*m*n)
				for i := range batch {
					Gemm(ta, tb, m, n, k, a[i*m*k:(i+1)*m*k], b[i*k*n:(i+1)*k*n], 0, want[i*m*n:(i+1)*m*n])
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("batch %d, %v, %v: value %d is %v, one Gemm per product gives %v", batch, ta, tb, i, got[i], want[i])
					}
				}
			}
		}
	}
}

func float32s(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}
