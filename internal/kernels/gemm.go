package kernels

import (
	"runtime"

	"github.com/kerasgo/kerasgo/internal/parallel"
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

// packSgemmB packs op(B) once for many float32 products by it and returns
// the product c = a·op(B) + beta·c (a m x k, row stride lda), where this
// build's BLAS can (nil otherwise, or where it cannot for these sizes);
// the pure-Go build sets it (OpenBLAS packs its operands itself).
var packSgemmB func(transB bool, k, n int, b []float32, ldb int) func(m int, a []float32, lda int, beta float32, c []float32, ldc int)

// FixedB returns the product c = a·op(b) + beta·c (op(b) k x n, b with row
// stride ldb; a m x k with row stride lda; c m x n with row stride ldc)
// for many a and one b, as GemmStrided computes it: with b packed once
// where this build's float32 product can take it packed (a recurrent
// kernel, multiplied at every step of a sequence, was packed again at
// every step), and the same values to the bit. It is safe to call from
// many goroutines at once.
func FixedB[T float32 | float64](tb blas.Transpose, k, n int, b []T, ldb int) func(m int, a []T, lda int, beta T, c []T, ldc int) {
	if b32, ok := any(b).([]float32); ok && packSgemmB != nil {
		if product := packSgemmB(tb == blas.Trans, k, n, b32, ldb); product != nil {
			return func(m int, a []T, lda int, beta T, c []T, ldc int) {
				if m > 0 {
					product(m, any(a).([]float32), lda, float32(beta), any(c).([]float32), ldc)
				}
			}
		}
	}
	return func(m int, a []T, lda int, beta T, c []T, ldc int) {
		GemmStrided(blas.NoTrans, tb, m, n, k, a, lda, b, ldb, beta, c, ldc)
	}
}

// BatchGemm computes c_i = op(a_i)·op(b_i) for batch packed row-major
// matrices one after the other in a, b and c (op as in Gemm): c_i is
// m x n, op(a_i) m x k, op(b_i) k x n. With at least two products per core
// (attention's, one per sample and head), each product runs on one core
// and the cores share the batch, in one parallel loop; otherwise each
// product runs on every core in turn. The values are the same either way.
func BatchGemm[T float32 | float64](ta, tb blas.Transpose, batch, m, n, k int, a, b, c []T) {
	if a32, ok := any(a).([]float32); ok && serialSgemm != nil && batch >= 2*runtime.GOMAXPROCS(0) {
		b32, c32 := any(b).([]float32), any(c).([]float32)
		lda, ldb := k, n
		if ta == blas.Trans {
			lda = m
		}
		if tb == blas.Trans {
			ldb = k
		}
		parallel.For(batch, func(i int) {
			serialSgemm(ta == blas.Trans, tb == blas.Trans, m, n, k, 1, a32[i*m*k:(i+1)*m*k], lda, b32[i*k*n:(i+1)*k*n], ldb, 0, c32[i*m*n:(i+1)*m*n], n)
		})
		return
	}
	for i := range batch {
		Gemm(ta, tb, m, n, k, a[i*m*k:(i+1)*m*k], b[i*k*n:(i+1)*k*n], 0, c[i*m*n:(i+1)*m*n])
	}
}
