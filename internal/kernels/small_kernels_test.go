package kernels

import (
	"math"
	"testing"
)

// Erf and the Adam kernels against their formulas, value by value.
func TestErfAndAdamMatchDefinitions(t *testing.T) {
	for _, n := range []int{5, 1 << 17} {
		x := randoms(n, 11)
		y := make([]float64, n)
		Erf(x, y)
		for i, v := range x {
			if y[i] != math.Erf(v) {
				t.Fatalf("n=%d: Erf(%v) = %v, want %v", n, v, y[i], math.Erf(v))
			}
		}
		p, g, m, v := randoms(n, 12), randoms(n, 13), randoms(n, 14), randoms(n, 15)
		for i := range v {
			v[i] = math.Abs(v[i])
		}
		m2, v2, p2 := make([]float64, n), make([]float64, n), make([]float64, n)
		AdamMoment(m, g, 0.1, false, m2)
		AdamMoment(v, g, 0.001, true, v2)
		AdamStep(p, m2, v2, 0.01, 1e-7, p2)
		for i := range p {
			wantM := m[i] + (g[i]-m[i])*0.1
			wantV := v[i] + (g[i]*g[i]-v[i])*0.001
			wantP := p[i] - wantM*0.01/(math.Sqrt(wantV)+1e-7)
			if m2[i] != wantM || v2[i] != wantV || p2[i] != wantP {
				t.Fatalf("n=%d, value %d: Adam gives m %v v %v p %v, want %v %v %v", n, i, m2[i], v2[i], p2[i], wantM, wantV, wantP)
			}
		}
	}
}

// In float32 (the vector kernels on amd64), Adam rounds each operation as
// its definition in Go does, to the bit, whatever the length (blocks of 8
// and a tail) and however the values are split among workers; special
// values (zeros, tiny and huge moments) included.
func TestAdamFloat32MatchesDefinition(t *testing.T) {
	for _, n := range []int{1, 7, 8, 9, 67, 1<<16 + 5} {
		p, g, m, v := randoms(n, 21), randoms(n, 22), randoms(n, 23), randoms(n, 24)
		p32, g32, m32, v32 := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range p {
			p32[i], g32[i], m32[i], v32[i] = float32(p[i]), float32(g[i]), float32(m[i]), float32(math.Abs(v[i]))
		}
		specials := []float32{0, 1e-30, 1e30, 3.4e38, -0}
		for i, s := range specials {
			if i < n {
				g32[i], v32[i] = s, float32(math.Abs(float64(s)))
			}
		}
		const rate1, rate2, alpha, eps = float32(0.1), float32(0.001), float32(0.01), float32(1e-7)
		m2, v2, p2 := make([]float32, n), make([]float32, n), make([]float32, n)
		AdamMoment(m32, g32, rate1, false, m2)
		AdamMoment(v32, g32, rate2, true, v2)
		AdamStep(p32, m2, v2, alpha, eps, p2)
		for i := range p32 {
			gi := g32[i]
			sq := float32(gi * gi)
			wantM := m32[i] + float32((gi-m32[i])*rate1)
			wantV := v32[i] + float32((sq-v32[i])*rate2)
			wantP := p32[i] - float32(wantM*alpha)/(float32(math.Sqrt(float64(wantV)))+eps)
			same := func(a, b float32) bool { return a == b || (a != a && b != b) }
			if !same(m2[i], wantM) || !same(v2[i], wantV) || !same(p2[i], wantP) {
				t.Fatalf("n=%d, value %d (g %v): Adam gives m %v v %v p %v, want %v %v %v", n, i, gi, m2[i], v2[i], p2[i], wantM, wantV, wantP)
			}
		}
	}
}

// ArgMaxRows picks the first largest value; OneHotRows puts one 1 per row
// and refuses an index that is not a class.
func TestArgMaxAndOneHot(t *testing.T) {
	x := []float32{1, 3, 3, 0, -1, -2, -0.5, -3}
	idx := make([]float32, 2)
	ArgMaxRows(x, idx)
	if idx[0] != 1 || idx[1] != 2 {
		t.Fatalf("ArgMaxRows = %v, want [1 2]", idx)
	}
	hot := make([]float32, 8)
	if err := OneHotRows(idx, hot, 4); err != nil {
		t.Fatal(err)
	}
	want := []float32{0, 1, 0, 0, 0, 0, 1, 0}
	for i := range want {
		if hot[i] != want[i] {
			t.Fatalf("OneHotRows = %v, want %v", hot, want)
		}
	}
	for _, bad := range []float32{4, -1, 1.5} {
		if err := OneHotRows([]float32{0, bad}, hot, 4); err == nil {
			t.Fatalf("OneHotRows took class %v of 4", bad)
		}
	}
}

// Tile repeats by definition, and Untile is its adjoint:
// <Tile(a), b> = <a, Untile(b)>.
func TestTileAndItsAdjoint(t *testing.T) {
	cases := []struct{ small, out []int }{
		{[]int{1, 4}, []int{3, 4}},
		{[]int{3, 1}, []int{3, 5}},
		{[]int{2, 1, 3}, []int{2, 4, 3}},
		{[]int{1, 1, 1}, []int{2, 3, 4}},
		{[]int{2, 3, 4}, []int{2, 3, 4}},
		// Large enough to run in ranges of the leading axis on every
		// core: a global average pool's sum, and a repeated leading axis.
		{[]int{64, 1, 1, 32}, []int{64, 16, 16, 32}},
		{[]int{1, 16, 16, 32}, []int{64, 16, 16, 32}},
	}
	for _, c := range cases {
		ns, no := prod(c.small), prod(c.out)
		a, b := randoms(ns, 21), randoms(no, 22)
		tiled := make([]float64, no)
		Tile(tiled, a, c.small, c.out)
		strides := broadcastStrides(c.small)
		for o := range no {
			off, rest := 0, o
			for d := len(c.out) - 1; d >= 0; d-- {
				off += rest % c.out[d] * strides[d]
				rest /= c.out[d]
			}
			if tiled[o] != a[off] {
				t.Fatalf("%v to %v: Tile value %d is %v, want %v", c.small, c.out, o, tiled[o], a[off])
			}
		}
		back := make([]float64, ns)
		Untile(back, b, c.small, c.out)
		if lhs, rhs := dot(tiled, b), dot(a, back); math.Abs(lhs-rhs) > 1e-9*math.Max(1, math.Abs(lhs)) {
			t.Fatalf("%v to %v: <Tile a, b> = %v but <a, Untile b> = %v", c.small, c.out, lhs, rhs)
		}
		// In ranges or in one piece, the sums are the same to the bit.
		serial := make([]float64, ns)
		untile(serial, b, c.small, c.out)
		for i := range serial {
			if serial[i] != back[i] {
				t.Fatalf("%v to %v: Untile value %d is %v, one goroutine's is %v", c.small, c.out, i, back[i], serial[i])
			}
		}
	}
}

func prod(s []int) int {
	n := 1
	for _, v := range s {
		n *= v
	}
	return n
}

// GELU's erf over a transformer block's hidden layer (32 x 200 x 128).
func BenchmarkErf(b *testing.B) {
	x := make([]float32, 32*200*128)
	for i := range x {
		x[i] = float32(i%200)/50 - 2
	}
	y := make([]float32, len(x))
	for b.Loop() {
		Erf(x, y)
	}
}

// The fused Adam update of the demo CNN's largest kernel (9216 x 128).
func BenchmarkAdam(b *testing.B) {
	n := 9216 * 128
	p, g, m, v := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	m2, v2, p2 := make([]float32, n), make([]float32, n), make([]float32, n)
	for b.Loop() {
		AdamMoment(m, g, 0.1, false, m2)
		AdamMoment(v, g, 0.001, true, v2)
		AdamStep(p, m2, v2, 0.001, 1e-7, p2)
	}
}

// A bias gradient's reduction over a batch: (128 x 26 x 26 x 32) to (32).
func BenchmarkUntile(b *testing.B) {
	out := []int{128 * 26 * 26, 32}
	src := make([]float32, out[0]*out[1])
	dst := make([]float32, 32)
	for b.Loop() {
		Untile(dst, src, []int{1, 32}, out)
	}
}

// ReluGrad passes dy only where y > 0: not at ±0, negatives, -Inf or NaN.
func TestReluGradEdges(t *testing.T) {
	ys := []float64{1, 1e-310, math.Inf(1), 0, math.Copysign(0, -1), -1, -1e-310, math.Inf(-1), math.NaN(), -math.NaN()}
	dy := make([]float64, len(ys))
	for i := range dy {
		dy[i] = 3
	}
	dx := make([]float64, len(ys))
	ReluGrad(ys, dy, dx)
	y32, dy32, dx32 := make([]float32, len(ys)), make([]float32, len(ys)), make([]float32, len(ys))
	for i, v := range ys {
		y32[i], dy32[i] = float32(v), 3
	}
	y32[1] = 1e-40 // a float32 subnormal
	y32[6] = -1e-40
	ReluGrad(y32, dy32, dx32)
	for i, v := range ys {
		want := 0.0
		if v > 0 {
			want = 3
		}
		if dx[i] != want || float64(dx32[i]) != want {
			t.Errorf("y = %v: ReluGrad gives %v (float64) and %v (float32), want %v", v, dx[i], dx32[i], want)
		}
	}
}

// ReLU's gradient over the demo CNN's first activation (128x26x26x32),
// half of it positive at random.
func BenchmarkReluGrad(b *testing.B) {
	n := 128 * 26 * 26 * 32
	y, dy, dx := make([]float32, n), make([]float32, n), make([]float32, n)
	for i, v := range randoms(n, 71) {
		y[i], dy[i] = max(float32(v), 0), float32(v)
	}
	for b.Loop() {
		ReluGrad(y, dy, dx)
	}
}
