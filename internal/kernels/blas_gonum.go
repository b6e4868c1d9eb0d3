//go:build !openblas

package kernels

import (
	"github.com/kerasgo/kerasgo/internal/sgemm"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/gonum"
)

// BLAS names the BLAS this build's matrix products use.
var BLAS = "gonum (pure Go)"

// FastBLAS is gonum's pure-Go BLAS with its float32 matrix product
// replaced by package sgemm's packed AVX2/FMA kernel (3-5x gonum's on the
// CNN's shapes, see docs/benchmarks.md).
type FastBLAS struct{ gonum.Implementation }

// Sgemm computes C = alpha·op(A)·op(B) + beta·C (row-major, as gonum's).
func (FastBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemm.Gemm(tA != blas.NoTrans, tB != blas.NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// serialSgemm is the float32 product on the calling goroutine alone, where
// this build has one (BatchGemm runs many at once); nil otherwise.
var serialSgemm func(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)

// FastAvailable reports whether FastBLAS runs its AVX2/FMA kernel here.
func FastAvailable() bool { return sgemm.Available() }

// Gemm's float32 products go through FastBLAS where the CPU has AVX2 and
// FMA.
func init() {
	if sgemm.Available() {
		blas32.Use(FastBLAS{})
		serialSgemm = sgemm.GemmSerial
		packSgemmB = func(transB bool, k, n int, b []float32, ldb int) func(m int, a []float32, lda int, beta float32, c []float32, ldc int) {
			pb := sgemm.PackB(transB, k, n, b, ldb)
			if pb == nil {
				return nil
			}
			return func(m int, a []float32, lda int, beta float32, c []float32, ldc int) {
				sgemm.GemmPacked(false, m, 1, a, lda, pb, beta, c, ldc)
			}
		}
		BLAS = "pure Go: gonum, with kerasgo's AVX2/FMA float32 GEMM kernel"
	}
}
