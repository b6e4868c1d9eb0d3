package kernels

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

func randoms(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, n)
	for i := range out {
		out[i] = r.Float64()*2 - 1
	}
	return out
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func closeAll(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol {
			t.Fatalf("%s: value %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

// convCase is a convolution's shapes: input (n, h, w, c), kernel (kh,
// kw, c, f), strides and padding.
type convCase struct {
	n, h, w, c, kh, kw, f, sh, sw int
	pad                           backend.Padding
}

func (cc convCase) geom() (Geom, backend.Shape) {
	oh, _, _ := backend.ConvOutputSize(cc.h, cc.kh, cc.sh, cc.pad)
	ow, _, _ := backend.ConvOutputSize(cc.w, cc.kw, cc.sw, cc.pad)
	out := backend.Shape{cc.n, oh, ow, cc.f}
	return NewConvGeom(backend.Shape{cc.n, cc.h, cc.w, cc.c}, backend.Shape{cc.kh, cc.kw, cc.c, cc.f},
		backend.ConvOptions{Strides: [2]int{cc.sh, cc.sw}, Padding: cc.pad}, out), out
}

var convCases = []convCase{
	{2, 5, 6, 3, 3, 3, 4, 1, 1, backend.Valid},
	{3, 7, 5, 2, 3, 2, 3, 2, 1, backend.Same},
	{1, 6, 6, 1, 5, 5, 2, 2, 2, backend.Same},
	{4, 4, 4, 3, 1, 1, 5, 1, 1, backend.Valid},
	{2, 9, 8, 2, 4, 3, 3, 3, 2, backend.Same},
}

// directConv is the convolution's definition, channels_last.
func directConv(g Geom, x, k []float64) []float64 {
	out := make([]float64, g.n*g.oh*g.ow*g.f)
	for s := 0; s < g.n; s++ {
		for oy := 0; oy < g.oh; oy++ {
			for ox := 0; ox < g.ow; ox++ {
				for f := 0; f < g.f; f++ {
					sum := 0.0
					for a := 0; a < g.kh; a++ {
						for b := 0; b < g.kw; b++ {
							y, xx := oy*g.sh+a-g.ph, ox*g.sw+b-g.pw
							if y < 0 || y >= g.h || xx < 0 || xx >= g.w {
								continue
							}
							for c := 0; c < g.c; c++ {
								sum += x[((s*g.h+y)*g.w+xx)*g.c+c] * k[((a*g.kw+b)*g.c+c)*g.f+f]
							}
						}
					}
					out[((s*g.oh+oy)*g.ow+ox)*g.f+f] = sum
				}
			}
		}
	}
	return out
}

// The convolution equals its definition, and its two gradients are its
// adjoints: <conv(x, k), dy> = <x, dx(dy, k)> = <k, dk(x, dy)>, for
// strides, padding and kernels of every shape.
func TestConvMatchesDefinitionAndAdjoints(t *testing.T) {
	for i, cc := range convCases {
		g, out := cc.geom()
		x := randoms(cc.n*cc.h*cc.w*cc.c, uint64(i))
		k := randoms(cc.kh*cc.kw*cc.c*cc.f, uint64(i+10))
		dy := randoms(out.Size(), uint64(i+20))
		var s Scratch
		y := make([]float64, out.Size())
		ConvForward(g, x, k, y, ScratchOf[float64](&s, g.ScratchLen()))
		closeAll(t, "ConvForward", y, directConv(g, x, k), 1e-12)
		dx := make([]float64, len(x))
		for j := range dx { // ConvGradInput overwrites dx: nothing of this may survive
			dx[j] = math.NaN()
		}
		ConvGradInput(g, dy, k, dx, ScratchOf[float64](&s, g.ScratchLen()))
		dk := make([]float64, len(k))
		ConvGradKernel(g, x, dy, dk, ScratchOf[float64](&s, g.ScratchLen()))
		want := dot(y, dy)
		if got := dot(x, dx); math.Abs(got-want) > 1e-10 {
			t.Fatalf("case %d: <x, dx> = %v, <conv(x,k), dy> = %v", i, got, want)
		}
		if got := dot(k, dk); math.Abs(got-want) > 1e-10 {
			t.Fatalf("case %d: <k, dk> = %v, <conv(x,k), dy> = %v", i, got, want)
		}
		if g.SingleChunk() {
			ConvForward(g, x, k, y, ScratchOf[float64](&s, g.ScratchLen()))
			fromCols := make([]float64, len(k))
			ConvGradKernelFromCols(g, ScratchOf[float64](&s, g.ScratchLen()), dy, fromCols)
			closeAll(t, "ConvGradKernelFromCols", fromCols, dk, 1e-12)
		}
	}
}

// A batch larger than one im2col chunk is computed chunk by chunk with
// the same result as sample by sample.
func TestConvChunks(t *testing.T) {
	cc := convCase{300, 24, 24, 8, 3, 3, 2, 1, 1, backend.Same}
	g, out := cc.geom()
	if g.chunk() >= g.n {
		t.Fatalf("chunk %d covers the batch of %d: the test needs several chunks", g.chunk(), g.n)
	}
	x := randoms(cc.n*cc.h*cc.w*cc.c, 1)
	k := randoms(cc.kh*cc.kw*cc.c*cc.f, 2)
	var s Scratch
	y := make([]float64, out.Size())
	ConvForward(g, x, k, y, ScratchOf[float64](&s, g.ScratchLen()))
	closeAll(t, "ConvForward", y, directConv(g, x, k), 1e-12)
}

// Max pooling takes each window's largest value, and its gradient goes
// to that value's position (the first on ties), as the definition says.
func TestMaxPoolMatchesDefinition(t *testing.T) {
	for i, cc := range []convCase{
		{2, 6, 6, 3, 2, 2, 3, 2, 2, backend.Valid},
		{1, 7, 5, 2, 3, 3, 2, 2, 2, backend.Same},
		{3, 5, 5, 1, 2, 3, 1, 1, 2, backend.Valid},
	} {
		xs := backend.Shape{cc.n, cc.h, cc.w, cc.c}
		o := backend.PoolOptions{Size: [2]int{cc.kh, cc.kw}, Strides: [2]int{cc.sh, cc.sw}, Padding: cc.pad}
		oh, _, _ := backend.ConvOutputSize(cc.h, cc.kh, cc.sh, cc.pad)
		ow, _, _ := backend.ConvOutputSize(cc.w, cc.kw, cc.sw, cc.pad)
		out := backend.Shape{cc.n, oh, ow, cc.c}
		g := NewPoolGeom(xs, o, out)
		x := randoms(xs.Size(), uint64(i))
		x[3] = x[4] // a tie
		dy := randoms(out.Size(), uint64(i+5))
		y, argmax := make([]float64, out.Size()), make([]int, out.Size())
		MaxPoolForward(g, x, y, argmax)
		dx := make([]float64, len(x))
		MaxPoolGrad(g, argmax, dy, dx)
		noArgmax := make([]float64, out.Size())
		MaxPoolForward(g, x, noArgmax, nil)
		closeAll(t, "MaxPoolForward without argmax", noArgmax, y, 0)
		wantY := make([]float64, out.Size())
		wantDX := make([]float64, len(x))
		for s := 0; s < cc.n; s++ {
			for oy := 0; oy < oh; oy++ {
				for ox := 0; ox < ow; ox++ {
					for c := 0; c < cc.c; c++ {
						best, at := math.Inf(-1), -1
						for a := 0; a < cc.kh; a++ {
							for b := 0; b < cc.kw; b++ {
								yy, xx := oy*cc.sh+a-g.ph, ox*cc.sw+b-g.pw
								if yy < 0 || yy >= cc.h || xx < 0 || xx >= cc.w {
									continue
								}
								if i := ((s*cc.h+yy)*cc.w+xx)*cc.c + c; x[i] > best {
									best, at = x[i], i
								}
							}
						}
						o := ((s*oh+oy)*ow+ox)*cc.c + c
						wantY[o] = best
						wantDX[at] += dy[o]
					}
				}
			}
		}
		closeAll(t, "MaxPoolForward", y, wantY, 0)
		closeAll(t, "MaxPoolGrad", dx, wantDX, 1e-15)
	}
}

// Softmax and log-softmax equal exp(x)/sum(exp(x)) row by row, even for
// large values, and their gradients equal the Jacobian's product.
func TestSoftmaxMatchesDefinition(t *testing.T) {
	const width = 7
	x := randoms(5*width, 3)
	for i := range x {
		x[i] *= 30 // large enough that exp without the max shift overflows in float32
	}
	g := randoms(len(x), 4)
	for _, log := range []bool{false, true} {
		y := make([]float64, len(x))
		SoftmaxRows(y, x, width, log)
		dx := make([]float64, len(x))
		SoftmaxGradRows(dx, y, g, width, log)
		want := make([]float64, len(x))
		wantDX := make([]float64, len(x))
		for r := 0; r < len(x); r += width {
			top := math.Inf(-1)
			for _, v := range x[r : r+width] {
				top = math.Max(top, v)
			}
			sum := 0.0
			for _, v := range x[r : r+width] {
				sum += math.Exp(v - top)
			}
			p := make([]float64, width)
			for j, v := range x[r : r+width] {
				p[j] = math.Exp(v-top) / sum
				want[r+j] = p[j]
				if log {
					want[r+j] = v - top - math.Log(sum)
				}
			}
			for j := range width { // dx_j = sum_i g_i dy_i/dx_j
				for i := range width {
					var d float64
					if log {
						d = -p[j]
						if i == j {
							d++
						}
					} else {
						d = -p[i] * p[j]
						if i == j {
							d += p[i]
						}
					}
					wantDX[r+j] += g[r+i] * d
				}
			}
		}
		closeAll(t, "SoftmaxRows", y, want, 1e-12)
		closeAll(t, "SoftmaxGradRows", dx, wantDX, 1e-12)
	}
}

// In float32 softmax and log-softmax are within 1e-6 of the definition
// (relative to the larger of 1 and the value), and softmax's gradient
// within 1e-6 of y·(g - Σ g·y), for rows shorter and longer than a block
// of 8, with masked (-Inf) and hugely negative entries; a row with a NaN
// is all NaN.
func TestSoftmaxFloat32(t *testing.T) {
	for _, width := range []int{1, 7, 8, 9, 200, 203} {
		x64 := randoms(4*width, 31)
		x := make([]float32, len(x64))
		for i, v := range x64 {
			x[i] = float32(v * 30)
		}
		if width > 1 { // a masked value, and one far below the rest
			x[0] = float32(math.Inf(-1))
			x[width+1] = -1e30
		}
		for _, log := range []bool{false, true} {
			y := make([]float32, len(x))
			SoftmaxRows(y, x, width, log)
			for r := 0; r < len(x); r += width {
				top := math.Inf(-1)
				for _, v := range x[r : r+width] {
					top = math.Max(top, float64(v))
				}
				sum := 0.0
				for _, v := range x[r : r+width] {
					sum += math.Exp(float64(v) - top)
				}
				for j, v := range x[r : r+width] {
					want := math.Exp(float64(v)-top) / sum
					if log {
						want = float64(v) - top - math.Log(sum)
					}
					got := float64(y[r+j])
					if d := math.Abs(got - want); !(d <= 1e-6*math.Max(1, math.Abs(want))) && !(math.IsInf(want, -1) && math.IsInf(got, -1)) {
						t.Fatalf("width %d, log %v, row %d, value %d (x %v): %v, want %v", width, log, r/width, j, v, got, want)
					}
				}
			}
			if log {
				continue
			}
			g := make([]float32, len(x))
			for i, v := range randoms(len(x), 32) {
				g[i] = float32(v)
			}
			dx := make([]float32, len(x))
			SoftmaxGradRows(dx, y, g, width, false)
			for r := 0; r < len(x); r += width {
				dot := 0.0
				for j := range width {
					dot += float64(g[r+j]) * float64(y[r+j])
				}
				for j := range width {
					want := float64(y[r+j]) * (float64(g[r+j]) - dot)
					if d := math.Abs(float64(dx[r+j]) - want); !(d <= 1e-6) {
						t.Fatalf("gradient, width %d, row %d, value %d: %v, want %v", width, r/width, j, dx[r+j], want)
					}
				}
			}
		}
	}
	x := []float32{1, 2, float32(math.NaN()), 4, 5, 6, 7, 8, 9, 10}
	y := make([]float32, len(x))
	SoftmaxRows(y, x, len(x), false)
	for i, v := range y {
		if v == v {
			t.Fatalf("softmax of a row with a NaN: value %d is %v, want NaN", i, v)
		}
	}
}

// ReLU, bias rows and their gradients, over lengths that do and do not
// split across goroutines.
func TestElementwiseMatchDefinitions(t *testing.T) {
	for _, n := range []int{7, 1 << 17} {
		x := randoms(n, 5)
		y := make([]float64, n)
		ReluForward(x, y)
		dy := randoms(n, 6)
		dx := make([]float64, n)
		ReluGrad(y, dy, dx)
		for i, v := range x {
			want, wantD := math.Max(v, 0), 0.0
			if v > 0 {
				wantD = dy[i]
			}
			if y[i] != want || dx[i] != wantD {
				t.Fatalf("n=%d, value %d: relu %v grad %v, want %v %v", n, i, y[i], dx[i], want, wantD)
			}
		}
		const width = 7
		rows := n / width
		bias := randoms(width, 7)
		out := make([]float64, rows*width)
		AddRows(x[:rows*width], bias, out)
		sum := make([]float64, width)
		SumRows(x[:rows*width], sum)
		wantSum := make([]float64, width)
		for r := range rows {
			for j := range width {
				if out[r*width+j] != x[r*width+j]+bias[j] {
					t.Fatalf("AddRows row %d col %d", r, j)
				}
				wantSum[j] += x[r*width+j]
			}
		}
		closeAll(t, "SumRows", sum, wantSum, 1e-9)
		copied := make([]float64, n)
		Copy(copied, x)
		closeAll(t, "Copy", copied, x, 0)
		fused := make([]float64, rows*width)
		AddRowsRelu(x[:rows*width], bias, fused)
		ReluForward(out, out)
		closeAll(t, "AddRowsRelu", fused, out, 0)
		// Add, and Add with ReLU in one pass (to the bit, ReluForward of
		// the sum).
		other := randoms(n, 8)
		added, relu := make([]float64, n), make([]float64, n)
		Add(added, x, other)
		for i := range added {
			if added[i] != x[i]+other[i] {
				t.Fatalf("Add value %d is %v, want %v", i, added[i], x[i]+other[i])
			}
		}
		AddRelu(relu, x, other)
		ReluForward(added, added)
		closeAll(t, "AddRelu", relu, added, 0)
		// SGDStep is ScaleInto then Sub, to the bit, in float32 too.
		step, scaled := make([]float64, n), make([]float64, n)
		SGDStep(step, x, other, 0.01)
		ScaleInto(scaled, other, 0.01)
		Sub(scaled, x, scaled)
		closeAll(t, "SGDStep", step, scaled, 0)
		x32, g32 := make([]float32, n), make([]float32, n)
		for i := range x32 {
			x32[i], g32[i] = float32(x[i]), float32(other[i])
		}
		step32, scaled32 := make([]float32, n), make([]float32, n)
		SGDStep(step32, x32, g32, 0.01)
		ScaleInto(scaled32, g32, 0.01)
		Sub(scaled32, x32, scaled32)
		if !slices.Equal(step32, scaled32) {
			t.Fatalf("n=%d: float32 SGDStep differs from ScaleInto then Sub", n)
		}
	}
}

// FCN-5's first kernel, 26752x2048, updated by plain SGD.
func BenchmarkSGDStep(b *testing.B) {
	p, g := make([]float32, 26752*2048), make([]float32, 26752*2048)
	for b.Loop() {
		SGDStep(p, p, g, 0.01)
	}
}

// The demo CNN's first convolution at batch 128: 28x28x1 to 32 filters.
func BenchmarkConvForward(b *testing.B) {
	cc := convCase{128, 28, 28, 1, 3, 3, 32, 1, 1, backend.Valid}
	g, out := cc.geom()
	x, k := make([]float32, cc.n*cc.h*cc.w*cc.c), make([]float32, cc.kh*cc.kw*cc.c*cc.f)
	y := make([]float32, out.Size())
	var s Scratch
	for b.Loop() {
		ConvForward(g, x, k, y, ScratchOf[float32](&s, g.ScratchLen()))
	}
}

// The demo CNN's second convolution's input gradient: 26x26x32 to 64.
func BenchmarkConvGradInput(b *testing.B) {
	cc := convCase{128, 26, 26, 32, 3, 3, 64, 1, 1, backend.Valid}
	g, out := cc.geom()
	dx, k := make([]float32, cc.n*cc.h*cc.w*cc.c), make([]float32, cc.kh*cc.kw*cc.c*cc.f)
	dy := make([]float32, out.Size())
	var s Scratch
	for b.Loop() {
		ConvGradInput(g, dy, k, dx, ScratchOf[float32](&s, g.ScratchLen()))
	}
}

func BenchmarkMaxPool(b *testing.B) {
	xs := backend.Shape{128, 24, 24, 64}
	out := backend.Shape{128, 12, 12, 64}
	g := NewPoolGeom(xs, backend.PoolOptions{Size: [2]int{2, 2}, Strides: [2]int{2, 2}, Padding: backend.Valid}, out)
	x, y, argmax := make([]float32, xs.Size()), make([]float32, out.Size()), make([]int, out.Size())
	for i, v := range randoms(len(x), 1) { // where the maximum is varies, as in a network
		x[i] = float32(v)
	}
	for b.Loop() {
		MaxPoolForward(g, x, y, argmax)
	}
}

func BenchmarkSoftmaxRows(b *testing.B) {
	x, y := make([]float32, 128*1000), make([]float32, 128*1000)
	for b.Loop() {
		SoftmaxRows(y, x, 1000, false)
	}
}

func BenchmarkReluForward(b *testing.B) {
	x, y := make([]float32, 128*26*26*32), make([]float32, 128*26*26*32)
	for b.Loop() {
		ReluForward(x, y)
	}
}

func BenchmarkAddRows(b *testing.B) {
	x, y := make([]float32, 128*26*26*32), make([]float32, 128*26*26*32)
	bias := make([]float32, 32)
	for b.Loop() {
		AddRows(x, bias, y)
	}
}

// The kernels that split rows or columns among goroutines give, bit for
// bit, what one goroutine gives: every value is computed in the same
// order.
func TestParallelKernelsEqualSequential(t *testing.T) {
	const rows, width = 5000, 10
	x := randoms(rows*width, 8)
	g := randoms(rows*width, 9)
	for _, log := range []bool{false, true} {
		par, seq := make([]float64, len(x)), make([]float64, len(x))
		SoftmaxRows(par, x, width, log)
		softmaxRows(seq, x, width, log)
		closeAll(t, "SoftmaxRows", par, seq, 0)
		SoftmaxGradRows(par, seq, g, width, log)
		dseq := make([]float64, len(x))
		softmaxGradRows(dseq, seq, g, width, log)
		closeAll(t, "SoftmaxGradRows", par, dseq, 0)
	}
	const n = 64
	m := randoms(2048*n, 10)
	sum := make([]float64, n)
	SumRows(m, sum)
	want := make([]float64, n)
	for r := range 2048 {
		for i := range n {
			want[i] += m[r*n+i]
		}
	}
	closeAll(t, "SumRows", sum, want, 0)
}

func BenchmarkSoftmaxGradRows(b *testing.B) {
	y, g, dx := make([]float32, 128*1000), make([]float32, 128*1000), make([]float32, 128*1000)
	for b.Loop() {
		SoftmaxGradRows(dx, y, g, 1000, false)
	}
}

// The demo CNN's first convolution's bias gradient: 128*26*26 rows of 32.
func BenchmarkSumRows(b *testing.B) {
	g, dst := make([]float32, 128*26*26*32), make([]float32, 32)
	for b.Loop() {
		SumRows(g, dst)
	}
}

// Permute moves every value to its transposed index, CopyBlock copies a
// block out and back in, and ScatterAddRows is GatherRows's adjoint;
// indices outside the table are errors.
func TestLayoutKernelsMatchDefinitions(t *testing.T) {
	in := backend.Shape{2, 3, 4}
	src := randoms(in.Size(), 11)
	perm := []int{2, 0, 1}
	dst := make([]float64, len(src))
	Permute(dst, src, in, perm)
	for a := range 2 {
		for b := range 3 {
			for c := range 4 {
				if got, want := dst[(c*2+a)*3+b], src[(a*3+b)*4+c]; got != want {
					t.Fatalf("Permute: (%d,%d,%d) is %v, want %v", a, b, c, got, want)
				}
			}
		}
	}
	// Every permutation of a 4-D shape (the last axis kept last or not,
	// the first split among workers or not) against the index formula.
	in4 := backend.Shape{3, 2, 4, 5}
	src4 := randoms(in4.Size(), 14)
	for _, p := range permutations(4) {
		out := make([]float64, len(src4))
		Permute(out, src4, in4, p)
		outDims := []int{in4[p[0]], in4[p[1]], in4[p[2]], in4[p[3]]}
		for o := range out {
			var at [4]int // dst's index, then src's
			rest := o
			for d := 3; d >= 0; d-- {
				at[d], rest = rest%outDims[d], rest/outDims[d]
			}
			var srcAt [4]int
			for d, q := range p {
				srcAt[q] = at[d]
			}
			i := ((srcAt[0]*in4[1]+srcAt[1])*in4[2]+srcAt[2])*in4[3] + srcAt[3]
			if out[o] != src4[i] {
				t.Fatalf("Permute %v: value %d is %v, want %v", p, o, out[o], src4[i])
			}
		}
	}
	begin, size := []int{1, 1, 1}, []int{1, 2, 3}
	block := make([]float64, 6)
	CopyBlock(block, src, in, begin, size, false)
	back := make([]float64, len(src))
	CopyBlock(block, back, in, begin, size, true)
	for b := range 2 {
		for c := range 3 {
			i := (1*3+1+b)*4 + 1 + c
			if block[b*3+c] != src[i] || back[i] != src[i] {
				t.Fatalf("CopyBlock: (%d,%d) is %v and %v back, want %v", b, c, block[b*3+c], back[i], src[i])
			}
		}
	}
	const rows, width = 5, 3
	table := randoms(rows*width, 12)
	idx := []int32{4, 0, 4, 2}
	gathered := make([]float64, len(idx)*width)
	if err := GatherRows(gathered, table, idx, rows, width); err != nil {
		t.Fatal(err)
	}
	grad := randoms(len(gathered), 13)
	scattered := make([]float64, len(table))
	if err := ScatterAddRows(scattered, grad, idx, rows, width); err != nil {
		t.Fatal(err)
	}
	if a, b := dot(gathered, grad), dot(table, scattered); math.Abs(a-b) > 1e-12 {
		t.Fatalf("<gather(table), g> = %v, <table, scatter(g)> = %v", a, b)
	}
	for _, bad := range [][]float64{{5}, {-1}, {math.NaN()}} {
		if err := GatherRows(make([]float64, width), table, bad, rows, width); err == nil {
			t.Fatalf("index %v: no error", bad)
		}
	}
	// Enough rows to be copied on every core: each is its table row.
	many := make([]int32, 6400)
	for i := range many {
		many[i] = int32(i * 7 % rows)
	}
	wide := make([]float64, len(many)*width)
	if err := GatherRows(wide, table, many, rows, width); err != nil {
		t.Fatal(err)
	}
	for i, r := range many {
		for j := range width {
			if wide[i*width+j] != table[int(r)*width+j] {
				t.Fatalf("gathered row %d, value %d is %v, table row %d has %v", i, j, wide[i*width+j], r, table[int(r)*width+j])
			}
		}
	}
}

// permutations returns every ordering of 0..n-1.
func permutations(n int) [][]int {
	if n == 1 {
		return [][]int{{0}}
	}
	var all [][]int
	for _, p := range permutations(n - 1) {
		for at := 0; at <= len(p); at++ {
			q := append(append(append([]int(nil), p[:at]...), n-1), p[at:]...)
			all = append(all, q)
		}
	}
	return all
}

// The transformer's head split: (32, 200, 4, 16) to (32, 4, 200, 16).
func BenchmarkPermute(b *testing.B) {
	in := backend.Shape{32, 200, 4, 16}
	src, dst := make([]float32, in.Size()), make([]float32, in.Size())
	for b.Loop() {
		Permute(dst, src, in, []int{0, 2, 1, 3})
	}
}

// The transformer's embedding lookup: 32*200 ids into a 20000x32 table.
func BenchmarkGatherRows(b *testing.B) {
	table, dst := make([]float32, 20000*32), make([]float32, 32*200*32)
	idx := make([]int32, 32*200)
	for i := range idx {
		idx[i] = int32(i * 7 % 20000)
	}
	for b.Loop() {
		if err := GatherRows(dst, table, idx, 20000, 32); err != nil {
			b.Fatal(err)
		}
	}
}
