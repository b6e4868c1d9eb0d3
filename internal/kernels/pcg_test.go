package kernels

import (
	"math/rand/v2"
	"testing"
)

// Moving the PCG ahead by n lands where n draws do.
func TestPCGAdvanceEqualsDrawing(t *testing.T) {
	for _, n := range []uint64{0, 1, 2, 3, 17, 1000, 65537} {
		p := rand.NewPCG(0x9e3779b97f4a7c15, 42)
		start := pcgState(p)
		for range n {
			p.Uint64()
		}
		if got, want := pcgAdvance(start, n), pcgState(p); got != want {
			t.Fatalf("advanced by %d: state %x, %d draws give %x", n, got, n, want)
		}
	}
}

// The mask drawn on every core is the one drawn in order, and the
// generator ends where drawing in order leaves it.
func TestDropoutMaskFromEqualsDrawingInOrder(t *testing.T) {
	for _, n := range []int{0, 5, 1 << 17, 1<<17 + 3} {
		serialSrc, parallelSrc := rand.NewPCG(7, 11), rand.NewPCG(7, 11)
		want := make([]float32, n)
		DropoutMask(want, 0.3, rand.New(serialSrc).Float32)
		got := make([]float32, n)
		DropoutMaskFrom(got, 0.3, parallelSrc)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("n=%d: keep[%d] is %v, drawn in order %v", n, i, got[i], want[i])
			}
		}
		if serialSrc.Uint64() != parallelSrc.Uint64() {
			t.Fatalf("n=%d: the generator is not where drawing in order leaves it", n)
		}
		want64, got64 := make([]float64, n), make([]float64, n)
		serialSrc, parallelSrc = rand.NewPCG(3, 5), rand.NewPCG(3, 5)
		DropoutMask(want64, 0.5, rand.New(serialSrc).Float64)
		DropoutMaskFrom(got64, 0.5, parallelSrc)
		for i := range want64 {
			if got64[i] != want64[i] {
				t.Fatalf("n=%d: float64 keep[%d] is %v, drawn in order %v", n, i, got64[i], want64[i])
			}
		}
	}
}

func BenchmarkDropoutMask(b *testing.B) {
	keep := make([]float32, 32*200*32)
	src := rand.NewPCG(1, 2)
	b.Run("in order", func(b *testing.B) {
		r := rand.New(src)
		for b.Loop() {
			DropoutMask(keep, 0.1, r.Float32)
		}
	})
	b.Run("every core", func(b *testing.B) {
		for b.Loop() {
			DropoutMaskFrom(keep, 0.1, src)
		}
	})
}
