package kernels

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// Gemm computes c = op(a)·op(b) + beta·c for packed row-major matrices,
// op transposing when asked: c is m x n, op(a) m x k, op(b) k x n.
func Gemm[T float32 | float64](ta, tb blas.Transpose, m, n, k int, a, b []T, beta T, c []T) {
	lda, ldb := k, n
	if ta == blas.Trans {
		lda = m
	}
	if tb == blas.Trans {
		ldb = k
	}
	GemmStrided(ta, tb, m, n, k, a, lda, b, ldb, beta, c, n)
}

// GemmStrided is Gemm on matrices inside larger ones: lda, ldb and ldc
// are the row strides of a, b and c as stored (a BLAS's leading
// dimensions), so a block of rows or columns is multiplied in place.
func GemmStrided[T float32 | float64](ta, tb blas.Transpose, m, n, k int, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	switch a := any(a).(type) {
	case []float32:
		blas32.Implementation().Sgemm(ta, tb, m, n, k, 1, a, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		blas64.Implementation().Dgemm(ta, tb, m, n, k, 1, a, lda, any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
	}
}
