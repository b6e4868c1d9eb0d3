//go:build !openblas

package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/sgemm"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/gonum"
	"gorgonia.org/tensor"
)

// BLAS names the BLAS this build computes with.
var BLAS = "gonum (pure Go)"

// fastBLAS is gonum's pure-Go BLAS with its float32 matrix product
// replaced by package sgemm's packed AVX2/FMA kernel (3-5x gonum's on the
// CNN's shapes, see docs/benchmarks.md).
type fastBLAS struct{ gonum.Implementation }

// Sgemm computes C = alpha·op(A)·op(B) + beta·C (row-major, as gonum's).
func (fastBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemm.Gemm(tA != blas.NoTrans, tB != blas.NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Every float32 matrix product (Gorgonia's MatMul and the adapter's
// convolution GEMMs) goes through fastBLAS where the CPU has AVX2 and FMA.
func init() {
	if sgemm.Available() {
		tensor.Use(fastBLAS{})
		blas32.Use(fastBLAS{})
		BLAS = "pure Go: gonum, with kerasgo's AVX2/FMA float32 GEMM kernel"
	}
}
