package sgemm

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/kerasgo/kerasgo/internal/parallel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// The register block (mr rows of C by nr columns, fixed by the kernel) and
// the cache blocks: kc of the inner dimension, mc rows of A and nc columns
// of B at a time, so a packed A block (mc x kc) stays in L2 and a packed B
// block (kc x nc) in L3.
const (
	mr = 6
	nr = 16
	kc = 384
	mc = 96
	nc = 2048
	// serialBelow is the product size (m·n·k) under which one goroutine
	// does the whole product: starting workers costs more than they save.
	serialBelow = 1 << 16
)

// Available reports whether this CPU runs the fast kernel.
func Available() bool { return haveKernel }

// Gemm computes C = alpha·op(A)·op(B) + beta·C for row-major matrices, where
// op(X) is X or, if its flag is set, Xᵀ; C is m x n, op(A) m x k, op(B)
// k x n, and lda, ldb, ldc are the row strides. It panics if the slices
// are too short (as a BLAS would). Where Available is false it calls
// gonum's Sgemm.
func Gemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gemm(runtime.GOMAXPROCS(0), transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// GemmSerial is Gemm on the calling goroutine alone, for a caller that
// runs many small products at once (a batched product, one per core). Its
// result is Gemm's, to the bit.
func GemmSerial(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	gemm(1, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemm is Gemm on up to workers goroutines.
func gemm(workers int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkArgs(transA, transB, m, n, k, a, lda, b, ldb, c, ldc)
	if !haveKernel {
		gonum.Implementation{}.Sgemm(transpose(transA), transpose(transB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if m == 0 || n == 0 {
		return
	}
	// With beta 0 the first block of k overwrites C instead of adding
	// to it: C is neither cleared first nor read.
	overwrite := beta == 0 && k > 0 && alpha != 0
	if !overwrite {
		scale(m, n, beta, c, ldc)
	}
	if k == 0 || alpha == 0 {
		return
	}
	if m*n*k < serialBelow {
		workers = 1
	}
	if k >= 2*splitChunk && m*n <= splitMaxC {
		gemmSplitK(workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, c, ldc, overwrite)
		return
	}
	gemmBlocks(workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, c, ldc, overwrite)
}

// A product with a long inner dimension and a small C (a convolution's
// kernel gradient: k is every output position of the batch) is split
// over k instead of over rows of C: each chunk of about splitChunk values
// of k is one serial product into its own partial C, and the partials are
// added in order at the end. Split over rows, such a product reads op(A)
// (the receptive fields, transposed) across its rows, and runs 1.5 times
// slower (BenchmarkGemm/conv2-gradKernel).
//
// The chunks are of equal length and their number a multiple of
// splitMultiple, so that two or four cores finish together (5 chunks of
// 3072 on 2 cores left one core idle for a chunk's time), and the result
// depends on k only, not on the number of cores.
const (
	splitChunk    = 8 * kc
	splitMultiple = 4
	splitMaxC     = 1 << 17 // values of C: a partial per chunk must stay small
)

// gemmSplitK adds alpha·op(A)·op(B) into c (already scaled by beta), or
// with overwrite stores it there, chunk by chunk of k on up to workers
// goroutines.
func gemmSplitK(workers int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, overwrite bool) {
	chunks := roundUp(ceilDiv(k, splitChunk), splitMultiple)
	per := ceilDiv(k, chunks)
	chunks = ceilDiv(k, per)
	partial := getBuf((chunks - 1) * m * n) // chunk 0 goes into c itself
	defer putBuf(partial)
	chunk := func(i int) {
		k0 := i * per
		kcur := min(per, k-k0)
		ai, bi := k0, k0*ldb // op(A)'s columns and op(B)'s rows from k0
		if transA {
			ai = k0 * lda
		}
		if transB {
			bi = k0
		}
		dst, ldd, over := c, ldc, overwrite
		if i > 0 {
			dst, ldd, over = (*partial)[(i-1)*m*n:i*m*n], n, true
		}
		gemmBlocks(1, transA, transB, m, n, kcur, alpha, a[ai:], lda, b[bi:], ldb, dst, ldd, over)
	}
	if workers == 1 {
		for i := range chunks {
			chunk(i)
		}
	} else {
		parallel.For(chunks, chunk)
	}
	for i := range chunks - 1 {
		p := (*partial)[i*m*n : (i+1)*m*n]
		for r := range m {
			row, add := c[r*ldc:r*ldc+n], p[r*n:(r+1)*n]
			for j, v := range add {
				row[j] += v
			}
		}
	}
}

// gemmBlocks adds alpha·op(A)·op(B) into c (already scaled by beta), or
// with overwrite stores it there, on up to workers goroutines, each
// taking row blocks of op(A).
//
// Each pass over a band of columns of B packs all of the band's rows at
// once (one parallel loop), then multiplies every row block by all of it
// (a second): a row block goes through the whole of k with its tile of C
// in cache, and a product costs two parallel loops per band rather than
// two per kc-block of k (a convolution's kernel gradient, k = 4096 and
// n = 64, had 22, each a fork and a join with a core waking up).
func gemmBlocks(workers int, transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, overwrite bool) {
	kStep, _ := blocking(k, n)
	gemmBlocksPacked(workers, transA, m, n, k, alpha, a, lda, func(workers, jc, ncur int, bp *[]float32) {
		packBBand(workers, transB, b, ldb, k, kStep, jc, ncur, *bp)
	}, nil, c, ldc, overwrite)
}

// blocking returns how a product of inner dimension k and n columns is
// cut: blocks of kStep values of k, bands of band columns of B.
func blocking(k, n int) (kStep, band int) {
	// Split k evenly: a short last block would pay the C tile's loads and
	// stores for few multiply-adds.
	kStep = ceilDiv(k, ceilDiv(k, kc))
	// A band's packed B holds all k of its rows and stays in L3.
	band = min(nc, max(nr, packedBValues/k/nr*nr))
	return kStep, band
}

// gemmBlocksPacked is gemmBlocks with B's bands from pack (which packs
// columns [jc, jc+ncur) of op(B) into the buffer it is given, on up to
// workers goroutines) or, where pack is nil, from packed (every band, one
// after another).
func gemmBlocksPacked(workers int, transA bool, m, n, k int, alpha float32, a []float32, lda int, pack func(workers, jc, ncur int, bp *[]float32), packed []float32, c []float32, ldc int, overwrite bool) {
	if _, band := blocking(k, n); pack != nil && workers > 1 && m <= bandSplitRows && ceilDiv(n, band) >= 2*workers {
		// Few rows and many bands: each worker packs whole bands alone
		// and multiplies every row by them, instead of two parallel loops
		// (pack, then rows) per band.
		parallel.For(ceilDiv(n, band), func(i int) {
			jc := i * band
			ncur := min(band, n-jc)
			bp := getBuf(k * roundUp(ncur, nr))
			defer putBuf(bp)
			pack(1, jc, ncur, bp)
			gemmBlocksPacked(1, transA, m, ncur, k, alpha, a, lda, nil, *bp, c[jc:], ldc, overwrite)
		})
		return
	}
	// Row blocks of A: at least two per worker where m allows, so the
	// workers finish together.
	rowBlock := min(mc, roundUp(ceilDiv(m, 2*workers), mr))
	blocks := ceilDiv(m, rowBlock)
	kStep, band := blocking(k, n)
	bp := &packed
	if pack != nil {
		bp = getBuf(k * roundUp(min(n, band), nr))
		defer putBuf(bp)
	}
	bandAt := 0 // where the band starts in packed
	// With alpha 1 the kernel reads A where it is (only a last partial
	// panel of rows is copied): packing A costs about as much as the
	// products when n is small, as in the convolutions' GEMMs.
	direct := alpha == 1
	for jc := 0; jc < n; jc += band {
		ncur := min(band, n-jc)
		width := roundUp(ncur, nr)
		var bandB []float32
		if pack != nil {
			pack(workers, jc, ncur, bp)
			bandB = *bp
		} else {
			bandB = packed[bandAt : bandAt+k*width]
			bandAt += k * width
		}
		block := func(blk int) {
			ap := getBuf(kStep * rowBlock)
			defer putBuf(ap)
			ic := blk * rowBlock
			mcur := min(rowBlock, m-ic)
			for pc := 0; pc < k; pc += kStep {
				kcur := min(kStep, k-pc)
				v := aView{trans: transA, a: a, lda: lda, ic: ic, pc: pc, direct: direct}
				if direct {
					if rem := mcur % mr; rem != 0 { // pack the partial panel alone
						last := mcur - rem
						packA(transA, a, lda, ic+last, pc, rem, kcur, 1, (*ap)[last*kcur:(last+mr)*kcur])
					}
				} else {
					packA(transA, a, lda, ic, pc, mcur, kcur, alpha, *ap)
				}
				v.packed = *ap
				macroKernel(v, mcur, ncur, kcur, bandB[pc*width:], c[ic*ldc+jc:], ldc, overwrite && pc == 0)
			}
		}
		if workers == 1 {
			for blk := range blocks {
				block(blk)
			}
			continue
		}
		parallel.For(blocks, block)
	}
}

// bandSplitRows: a product of at most this many rows of C is split over
// bands of B's columns rather than over rows (gemmBlocksPacked).
const bandSplitRows = 2 * mc

// packedBValues bounds a band of packed B (1 MB of float32, an L2): the band of
// columns narrows as k grows, down to one panel.
const packedBValues = 1 << 18

// aView locates the mr-row panels of one block of op(A): in the packed
// buffer, or, when direct, in A itself (all but a last partial panel).
type aView struct {
	trans, direct bool
	a             []float32
	lda, ic, pc   int
	packed        []float32
}

// panel returns the panel at row i of the block (rows rows of it) as the
// kernel takes it: a pointer and row and column strides.
func (v aView) panel(i, rows, kcur int) (p *float32, rs, cs int) {
	if !v.direct || rows < mr {
		return &v.packed[i*kcur], 1, mr
	}
	if v.trans { // op(A)[i][p] = A[p][i]
		return &v.a[v.pc*v.lda+v.ic+i], 1, v.lda
	}
	return &v.a[(v.ic+i)*v.lda+v.pc], v.lda, 1
}

// macroKernel multiplies an mcur x kcur block of op(A) by a packed
// kcur x ncur block of B and adds the product into C, or with overwrite
// stores it there, one mr x nr tile at a time; tiles at the edges go
// through a scratch tile.
func macroKernel(v aView, mcur, ncur, kcur int, bp, c []float32, ldc int, overwrite bool) {
	var edge [mr * nr]float32
	for j := 0; j < ncur; j += nr {
		bPanel := &bp[j*kcur]
		nj := min(nr, ncur-j)
		for i := 0; i < mcur; i += mr {
			mi := min(mr, mcur-i)
			ap, rs, cs := v.panel(i, mi, kcur)
			if mi == mr && nj == nr {
				kernel(kcur, ap, rs, cs, bPanel, &c[i*ldc+j], ldc, overwrite)
				continue
			}
			kernel(kcur, ap, rs, cs, bPanel, &edge[0], nr, true)
			for r := 0; r < mi; r++ {
				row := c[(i+r)*ldc+j:]
				row = row[:nj]
				tile := edge[r*nr : r*nr+nj]
				if overwrite {
					copy(row, tile)
					continue
				}
				for q, v := range tile {
					row[q] += v
				}
			}
		}
	}
}

// packA copies rows [ic, ic+mcur) and columns [pc, pc+kcur) of op(A), times
// alpha, into panels of mr rows: panel p holds, for each column, its mr
// values. Rows past the end are zero.
func packA(trans bool, a []float32, lda, ic, pc, mcur, kcur int, alpha float32, ap []float32) {
	for i0 := 0; i0 < mcur; i0 += mr {
		panel := ap[i0*kcur : (i0+mr)*kcur]
		rows := min(mr, mcur-i0)
		if rows < mr {
			clear(panel)
		}
		if trans { // op(A)[i][p] = A[p][i]: the mr values are contiguous
			for p := 0; p < kcur; p++ {
				src := a[(pc+p)*lda+ic+i0:]
				src = src[:rows]
				dst := panel[p*mr : p*mr+rows]
				for r, v := range src {
					dst[r] = alpha * v
				}
			}
			continue
		}
		for r := 0; r < rows; r++ { // read each row of A contiguously
			src := a[(ic+i0+r)*lda+pc:]
			src = src[:kcur]
			dst := panel[r:]
			for p, v := range src {
				dst[p*mr] = alpha * v
			}
		}
	}
}

// packB copies rows [pc, pc+kcur) and columns [jc, jc+ncur) of op(B) into
// panels of nr columns: panel q holds, for each row, its nr values.
// Columns past the end are zero.
func packB(trans bool, b []float32, ldb, pc, jc, kcur, ncur int, bp []float32) {
	for j0 := 0; j0 < ncur; j0 += nr {
		panel := bp[j0*kcur : (j0+nr)*kcur]
		cols := min(nr, ncur-j0)
		if cols < nr {
			clear(panel)
		}
		if trans { // op(B)[p][j] = B[j][p]: read each row of B contiguously
			for q := 0; q < cols; q++ {
				src := b[(jc+j0+q)*ldb+pc:]
				src = src[:kcur]
				dst := panel[q:]
				for p, v := range src {
					dst[p*nr] = v
				}
			}
			continue
		}
		for p := 0; p < kcur; p++ {
			copy(panel[p*nr:p*nr+cols], b[(pc+p)*ldb+jc+j0:])
		}
	}
}

// packBBand packs rows [0, k) and columns [jc, jc+ncur) of op(B), as
// packB does, one kStep-row block after another: the block of rows from pc
// starts at pc·roundUp(ncur, nr). The panels are split among workers when
// the band is large enough to gain from it.
func packBBand(workers int, trans bool, b []float32, ldb, k, kStep, jc, ncur int, bp []float32) {
	width := roundUp(ncur, nr)
	kBlocks := ceilDiv(k, kStep)
	pack := func(kb, j0, cols int) {
		pc := kb * kStep
		kcur := min(kStep, k-pc)
		packB(trans, b, ldb, pc, jc+j0, kcur, cols, bp[pc*width+j0*kcur:])
	}
	if workers <= 1 || k*ncur < 1<<15 {
		for kb := range kBlocks {
			pack(kb, 0, ncur)
		}
		return
	}
	// Items of about 16K values: every k-block's panels, in groups.
	panels := width / nr
	group := max(1, min(panels, (1<<14)/(kStep*nr)))
	groups := ceilDiv(panels, group)
	parallel.For(kBlocks*groups, func(item int) {
		kb, g := item/groups, item%groups
		j0 := g * group * nr
		pack(kb, j0, min(group*nr, ncur-j0))
	})
}

// scale multiplies C by beta (clearing it when beta is 0, so NaNs in C do
// not survive, as in BLAS).
func scale(m, n int, beta float32, c []float32, ldc int) {
	if beta == 1 {
		return
	}
	for i := 0; i < m; i++ {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

func checkArgs(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("sgemm: negative dimension m=%d n=%d k=%d", m, n, k))
	}
	ar, ac := m, k
	if transA {
		ar, ac = k, m
	}
	br, bc := k, n
	if transB {
		br, bc = n, k
	}
	checkMatrix("A", a, ar, ac, lda)
	checkMatrix("B", b, br, bc, ldb)
	checkMatrix("C", c, m, n, ldc)
}

// checkMatrix panics if s cannot hold a rows x cols matrix with row
// stride ld (as a BLAS would).
func checkMatrix(name string, s []float32, rows, cols, ld int) {
	if ld < max(1, cols) {
		panic(fmt.Sprintf("sgemm: %s's stride %d is less than its %d columns", name, ld, cols))
	}
	if rows > 0 && cols > 0 && len(s) < (rows-1)*ld+cols {
		panic(fmt.Sprintf("sgemm: %s has %d values, a %dx%d matrix with stride %d needs %d", name, len(s), rows, cols, ld, (rows-1)*ld+cols))
	}
}

func transpose(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }
func roundUp(a, b int) int { return ceilDiv(a, b) * b }

// bufs recycles packing buffers between calls.
var bufs sync.Pool

func getBuf(n int) *[]float32 {
	if p, ok := bufs.Get().(*[]float32); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	s := make([]float32, n)
	return &s
}

func putBuf(p *[]float32) { bufs.Put(p) }
