package kernels

import (
	"math"
	"testing"
)

// expFloat32 is within 1e-11 of math.Exp over its domain, and exactly 0
// where float32 underflows.
func TestExpFloat32(t *testing.T) {
	for i := 0; i <= 2_000_000; i++ {
		x := -104 * float64(i) / 2_000_000
		got, want := expFloat32(x), math.Exp(x)
		if math.Abs(got-want) > 1e-11*want {
			t.Fatalf("expFloat32(%v) = %v, want %v", x, got, want)
		}
	}
	if expFloat32(-104.5) != 0 || float32(math.Exp(-104.5)) != 0 {
		t.Fatal("below -104 e^x must round to 0 in float32")
	}
	if expFloat32(0) != 1 {
		t.Fatalf("expFloat32(0) = %v", expFloat32(0))
	}
}

func BenchmarkExpFloat32(b *testing.B) {
	s := 0.0
	for b.Loop() {
		for i := range 1000 {
			s += expFloat32(-float64(i) * 0.01)
		}
	}
	_ = s
}

func BenchmarkExpMath(b *testing.B) {
	s := 0.0
	for b.Loop() {
		for i := range 1000 {
			s += math.Exp(-float64(i) * 0.01)
		}
	}
	_ = s
}

// The float32 sigmoid is within one float32 rounding of the true value.
func TestSigmoidFloat32(t *testing.T) {
	for i := -400000; i <= 400000; i++ {
		x := float32(i) * 3e-4
		want := 1 / (1 + math.Exp(-float64(x)))
		got := float64(sigmoid(x))
		if ulp := math.Abs(float64(math.Nextafter32(float32(want), float32(math.Inf(1)))) - want); math.Abs(got-want) > ulp {
			t.Fatalf("sigmoid(%v) = %v, want %v", x, got, want)
		}
	}
}
