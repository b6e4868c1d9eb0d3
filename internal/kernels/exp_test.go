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

// exp32 is within 2 ulp of e^x (relative 2^-22) from the smallest
// normal result to e^88.37, 0 below, and NaN for NaN.
func TestExp32(t *testing.T) {
	for i := 0; i <= 2_000_000; i++ {
		x := float32(-87.3 + 175.67*float64(i)/2_000_000) // [-87.3, 88.37]
		want := math.Exp(float64(x))
		got := float64(exp32(x))
		if math.Abs(got-want) > 0x1p-22*want {
			t.Fatalf("exp32(%v) = %v, want %v (%.3g ulp)", x, got, want, math.Abs(got-want)/want*0x1p23)
		}
	}
	for _, x := range []float32{-87.4, -104, float32(math.Inf(-1))} {
		if exp32(x) != 0 {
			t.Fatalf("exp32(%v) = %v, want 0 (below the smallest normal float32)", x, exp32(x))
		}
	}
	if exp32(0) != 1 {
		t.Fatalf("exp32(0) = %v, want 1", exp32(0))
	}
	if nan := float32(math.NaN()); exp32(nan) == exp32(nan) {
		t.Fatal("exp32(NaN) is not NaN")
	}
}

// expFloat32 scales by 2^(k>>5) through the table's exponent bits; that
// equals multiplying by the table's value and then by 2^(k>>5), to the
// bit, over the whole domain (a power of two scales a normal float64
// exactly).
func TestExpFloat32ExponentBitsEqualTwoProducts(t *testing.T) {
	twoProducts := func(x float64) float64 {
		if x < -104 {
			return 0
		}
		k := int64(x*(32*math.Log2E) - 0.5)
		r := x - float64(k)*ln2By32Hi - float64(k)*ln2By32Lo
		r2 := r * r
		p := (1 + r) + r2*(0.5+r*(1.0/6)) + r2*r2*(1.0/24)
		return p * exp2Table[k&31] * math.Float64frombits(uint64(k>>5+1023)<<52)
	}
	for i := 0; i <= 2_000_000; i++ {
		x := -104 * float64(i) / 2_000_000
		if got, want := expFloat32(x), twoProducts(x); got != want {
			t.Fatalf("expFloat32(%v) = %v, scaling by two products gives %v", x, got, want)
		}
	}
}
