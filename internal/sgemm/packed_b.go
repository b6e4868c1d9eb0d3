package sgemm

import (
	"fmt"
	"runtime"
)

// PackedB is op(B) packed once in the layout Gemm packs it into for each
// product, for many products by the same B: a recurrent layer's kernel,
// multiplied by the state at every step of a sequence, was repacked at
// every step (16% of the LSTM step's time).
type PackedB struct {
	k, n int
	data []float32 // the bands of columns, one after another
}

// PackB packs op(B), k x n (B itself, or with transB Bᵀ; ldb is B's row
// stride), for GemmPacked. It returns nil where GemmPacked could not
// give Gemm's values to the bit (a k long enough for Gemm to split it,
// or a CPU without the kernel): multiply with Gemm then.
func PackB(transB bool, k, n int, b []float32, ldb int) *PackedB {
	if !haveKernel || k == 0 || n == 0 || k >= 2*splitChunk {
		return nil
	}
	if transB {
		checkMatrix("B", b, n, k, ldb)
	} else {
		checkMatrix("B", b, k, n, ldb)
	}
	kStep, band := blocking(k, n)
	size := 0
	for jc := 0; jc < n; jc += band {
		size += k * roundUp(min(band, n-jc), nr)
	}
	p := &PackedB{k: k, n: n, data: make([]float32, size)}
	at := 0
	for jc := 0; jc < n; jc += band {
		ncur := min(band, n-jc)
		packBBand(runtime.GOMAXPROCS(0), transB, b, ldb, k, kStep, jc, ncur, p.data[at:])
		at += k * roundUp(ncur, nr)
	}
	return p
}

// GemmPacked computes C = alpha·op(A)·B + beta·C as Gemm does, B packed
// by PackB (op(A) is m x k, C m x n with row stride ldc), with Gemm's
// values to the bit. It is safe to call from many goroutines at once on
// one PackedB.
func GemmPacked(transA bool, m int, alpha float32, a []float32, lda int, b *PackedB, beta float32, c []float32, ldc int) {
	gemmPacked(runtime.GOMAXPROCS(0), transA, m, alpha, a, lda, b, beta, c, ldc)
}

// GemmPackedSerial is GemmPacked on the calling goroutine alone.
func GemmPackedSerial(transA bool, m int, alpha float32, a []float32, lda int, b *PackedB, beta float32, c []float32, ldc int) {
	gemmPacked(1, transA, m, alpha, a, lda, b, beta, c, ldc)
}

func gemmPacked(workers int, transA bool, m int, alpha float32, a []float32, lda int, b *PackedB, beta float32, c []float32, ldc int) {
	n, k := b.n, b.k
	if m < 0 {
		panic(fmt.Sprintf("sgemm: negative dimension m=%d", m))
	}
	if transA {
		checkMatrix("A", a, k, m, lda)
	} else {
		checkMatrix("A", a, m, k, lda)
	}
	checkMatrix("C", c, m, n, ldc)
	if m == 0 {
		return
	}
	overwrite := beta == 0 && alpha != 0
	if !overwrite {
		scale(m, n, beta, c, ldc)
	}
	if alpha == 0 {
		return
	}
	if m*n*k < serialBelow {
		workers = 1
	}
	gemmBlocksPacked(workers, transA, m, n, k, alpha, a, lda, nil, b.data, c, ldc, overwrite)
}
