package sgemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// naive is the textbook triple loop in float64.
func naive(ta, tb bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) []float32 {
	out := append([]float32(nil), c...)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				av, bv := a[i*lda+p], b[p*ldb+j]
				if ta {
					av = a[p*lda+i]
				}
				if tb {
					bv = b[j*ldb+p]
				}
				s += float64(av) * float64(bv)
			}
			v := float64(alpha) * s
			if beta != 0 {
				v += float64(beta) * float64(c[i*ldc+j])
			}
			out[i*ldc+j] = float32(v)
		}
	}
	return out
}

func random(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = r.Float32()*2 - 1
	}
	return s
}

func TestGemmMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sizes := [][3]int{{1, 1, 1}, {6, 16, 1}, {7, 17, 3}, {5, 15, 300}, {13, 33, 257}, {100, 64, 288}, {288, 64, 600}, {37, 2100, 9}, {64, 10, 512}, {20, 300, 200}, {7, 129, 300}, {0, 5, 5}, {5, 5, 0},
		{30, 20, 2*splitChunk + 5}, {13, 40, 3 * splitChunk}, // these two split over k
		{9, 700, 3000}} // nine bands of B: split over them (bandSplitRows)
	for _, sz := range sizes {
		m, n, k := sz[0], sz[1], sz[2]
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				for _, ab := range [][2]float32{{1, 0}, {0.5, 1}, {-2, 0.25}} {
					name := fmt.Sprintf("%dx%dx%d/ta=%v/tb=%v/alpha=%v/beta=%v", m, n, k, ta, tb, ab[0], ab[1])
					lda, ldb, ldc := k+3, n+1, n+2
					if ta {
						lda = m + 3
					}
					if tb {
						ldb = k + 1
					}
					a := random(r, max(m, k)*lda+1)
					b := random(r, max(n, k)*ldb+1)
					c := random(r, m*ldc+1)
					want := naive(ta, tb, m, n, k, ab[0], a, lda, b, ldb, ab[1], c, ldc)
					Gemm(ta, tb, m, n, k, ab[0], a, lda, b, ldb, ab[1], c, ldc)
					for i := range want {
						if d := math.Abs(float64(c[i] - want[i])); d > 1e-4*math.Max(1, math.Sqrt(float64(k))) {
							t.Fatalf("%s: c[%d] = %v, want %v", name, i, c[i], want[i])
						}
					}
				}
			}
		}
	}
}

func TestGemmBetaZeroClearsNaN(t *testing.T) {
	c := []float32{float32(math.NaN()), float32(math.Inf(1))}
	Gemm(false, false, 1, 2, 1, 1, []float32{2}, 1, []float32{3, 4}, 2, 0, c, 2)
	if c[0] != 6 || c[1] != 8 {
		t.Fatalf("c = %v, want [6 8]", c)
	}
}

// With beta 0, C is not read: NaNs in it do not survive in full tiles,
// edge tiles or a product split over k, and the values between rows
// (past n, within ldc) are left alone.
func TestGemmBetaZeroIgnoresC(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, sz := range [][3]int{{12, 32, 5}, {13, 35, 400}, {30, 20, 2*splitChunk + 5}} {
		m, n, k := sz[0], sz[1], sz[2]
		a, b := random(r, m*k), random(r, k*n)
		ldc := n + 3
		c := make([]float32, m*ldc)
		for i := range c {
			c[i] = float32(math.NaN())
		}
		want := naive(false, false, m, n, k, 1, a, k, b, n, 0, make([]float32, m*ldc), ldc)
		Gemm(false, false, m, n, k, 1, a, k, b, n, 0, c, ldc)
		for i := range c {
			if i%ldc >= n {
				if c[i] == c[i] {
					t.Fatalf("%v: c[%d], past the row's end, was written: %v", sz, i, c[i])
				}
				continue
			}
			if d := math.Abs(float64(c[i] - want[i])); !(d <= 1e-4*math.Sqrt(float64(k))) {
				t.Fatalf("%v: c[%d] = %v, want %v", sz, i, c[i], want[i])
			}
		}
	}
}

func TestGemmShortSlicePanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("a 2x2 product into a 3-value C did not panic")
		}
	}()
	Gemm(false, false, 2, 2, 2, 1, make([]float32, 4), 2, make([]float32, 4), 2, 0, make([]float32, 3), 2)
}

// The convolution GEMMs of the demo CNN's second layer for a chunk of 25
// samples, and the first Dense layer's product; the MLP's; then the
// largest products of the 2016 networks at scripts/bench.sh's batches
// (FCN-5's at 64; AlexNet's and ResNet-50's at 16, their convolutions
// for the chunk of samples one im2col buffer holds, internal/kernels'
// Geom.chunk), and a square product, the most a GEMM of this size
// reaches (docs/benchmarks.md compares them).
var benchShapes = []struct {
	name    string
	ta, tb  bool
	m, n, k int
}{
	{"conv2-forward", false, false, 14400, 64, 288},
	{"conv2-gradKernel", true, false, 288, 64, 14400},
	{"conv2-gradInput", false, true, 14400, 288, 64},
	{"dense-9216x128", false, false, 128, 128, 9216},
	{"mlp1-forward", false, false, 128, 512, 784},
	{"mlp1-gradKernel", true, false, 784, 512, 128},
	{"mlp2-forward", false, false, 128, 512, 512},
	{"mlp2-gradInput", false, true, 128, 512, 512},
	{"mlp2-gradKernel", true, false, 512, 512, 128},
	{"fcn5-dense1-forward", false, false, 64, 2048, 26752},
	{"fcn5-dense1-gradKernel", true, false, 26752, 2048, 64},
	{"fcn5-hidden-forward", false, false, 64, 2048, 2048},
	{"fcn5-output-forward", false, false, 64, 26752, 2048},
	{"fcn5-output-gradInput", false, true, 64, 2048, 26752},
	{"alexnet-conv2-forward", false, false, 1568, 256, 2400},
	{"alexnet-conv2-gradKernel", true, false, 2400, 256, 1568},
	{"alexnet-conv3-forward", false, false, 1764, 384, 2304},
	{"alexnet-fc6-forward", false, false, 16, 4096, 12544},
	{"resnet50-conv3x3-64-forward", false, false, 6272, 64, 576},
	{"resnet50-conv3x3-512-forward", false, false, 784, 512, 4608},
	{"square-2048", false, false, 2048, 2048, 2048},
}

func BenchmarkGemm(b *testing.B) {
	if !Available() {
		b.Skip("no AVX2/FMA on this CPU")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range benchShapes {
		lda, ldb := s.k, s.n
		if s.ta {
			lda = s.m
		}
		if s.tb {
			ldb = s.k
		}
		a, bm, c := random(r, s.m*s.k), random(r, s.k*s.n), make([]float32, s.m*s.n)
		flops := 2 * float64(s.m) * float64(s.n) * float64(s.k)
		tr := func(t bool) blas.Transpose {
			if t {
				return blas.Trans
			}
			return blas.NoTrans
		}
		b.Run(s.name+"/sgemm", func(b *testing.B) {
			for b.Loop() {
				Gemm(s.ta, s.tb, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(s.name+"/gonum", func(b *testing.B) {
			for b.Loop() {
				gonum.Implementation{}.Sgemm(tr(s.ta), tr(s.tb), s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// A product split over k gives the same bits on one worker as on several.
func TestGemmSplitOverKIsDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m, n, k := 40, 33, 4*splitChunk+17
	a, b := random(r, k*m), random(r, k*n)
	many, one := make([]float32, m*n), make([]float32, m*n)
	Gemm(true, false, m, n, k, 1, a, m, b, n, 0, many, n)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	Gemm(true, false, m, n, k, 1, a, m, b, n, 0, one, n)
	for i := range many {
		if many[i] != one[i] {
			t.Fatalf("value %d: %v on several workers, %v on one", i, many[i], one[i])
		}
	}
}

// Packing a 384 x 512 block of B, as stored (row-major) and transposed
// (the input gradient's Wᵀ).
func BenchmarkPackB(b *testing.B) {
	const k, n = 384, 512
	src := random(rand.New(rand.NewPCG(5, 6)), k*n)
	dst := make([]float32, k*n)
	for _, trans := range []bool{false, true} {
		name, ldb := "rowMajor", n
		if trans {
			name, ldb = "transposed", k
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				packB(trans, src, ldb, 0, 0, k, n, dst)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(k*n), "ns/value")
		})
	}
}

// GemmSerial computes Gemm's values to the bit: the row blocks, bands and
// chunks of k do not depend on the number of goroutines.
func TestGemmSerialEqualsGemm(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, sz := range [][3]int{{7, 17, 3}, {100, 64, 288}, {288, 64, 600}, {9, 700, 3000}, {30, 20, 2*splitChunk + 5}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, trans := range [][2]bool{{false, false}, {true, false}, {false, true}} {
			lda, ldb := k, n
			if trans[0] {
				lda = m
			}
			if trans[1] {
				ldb = k
			}
			a, b := random(r, m*k), random(r, k*n)
			c0 := random(r, m*n)
			parallel, serial := append([]float32(nil), c0...), append([]float32(nil), c0...)
			Gemm(trans[0], trans[1], m, n, k, 0.5, a, lda, b, ldb, 1, parallel, n)
			GemmSerial(trans[0], trans[1], m, n, k, 0.5, a, lda, b, ldb, 1, serial, n)
			for i := range parallel {
				if parallel[i] != serial[i] {
					t.Fatalf("%v, transposed %v: value %d is %v on one goroutine, %v on every core", sz, trans, i, serial[i], parallel[i])
				}
			}
		}
	}
}

// GemmPacked with B packed once by PackB computes Gemm's values to the
// bit, for B or Bᵀ, over one band of columns or several, on every core or
// one, and with a beta that keeps C.
func TestGemmPackedEqualsGemm(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, sz := range [][3]int{{7, 17, 3}, {32, 256, 64}, {100, 64, 288}, {9, 700, 3000}, {13, 2100, 9}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, trans := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			lda, ldb := k, n
			if trans[0] {
				lda = m
			}
			if trans[1] {
				ldb = k
			}
			a, b, c0 := random(r, m*k), random(r, k*n), random(r, m*n)
			pb := PackB(trans[1], k, n, b, ldb)
			if pb == nil {
				t.Fatalf("%v: PackB refused a product Gemm does not split", sz)
			}
			for _, beta := range []float32{0, 0.5} {
				want := append([]float32(nil), c0...)
				Gemm(trans[0], trans[1], m, n, k, 1, a, lda, b, ldb, beta, want, n)
				for _, serial := range []bool{false, true} {
					got := append([]float32(nil), c0...)
					if serial {
						GemmPackedSerial(trans[0], m, 1, a, lda, pb, beta, got, n)
					} else {
						GemmPacked(trans[0], m, 1, a, lda, pb, beta, got, n)
					}
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("%v, transposed %v, beta %v, serial %v: value %d is %v, Gemm gives %v", sz, trans, beta, serial, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
	if PackB(false, 2*splitChunk, 4, make([]float32, 2*splitChunk*4), 4) != nil {
		t.Fatal("PackB packed a k that Gemm splits")
	}
}
