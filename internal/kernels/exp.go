package kernels

import "math"

// expFloat32 is e^x for x ≤ 0 when the result is to be rounded to
// float32: within 1e-11 of math.Exp (relative), far below float32's
// rounding, at about half its cost. With x = (32m + j)·ln2/32 + r,
// |r| ≤ ln2/64, e^x = 2^m · 2^(j/32) · e^r, the middle factor from a
// table and e^r a degree-4 polynomial. Below -104, e^x rounds to 0 in
// float32.
func expFloat32(x float64) float64 {
	if x < -104 {
		return 0
	}
	k := int64(x*(32*math.Log2E) - 0.5) // round half down: x ≤ 0
	r := x - float64(k)*ln2By32Hi - float64(k)*ln2By32Lo
	r2 := r * r
	p := (1 + r) + r2*(0.5+r*(1.0/6)) + r2*r2*(1.0/24)
	// 2^(k/32) as the table's bits with k>>5 added to the exponent
	// (exact: the table's exponent is 0 and k>>5 ≥ -150).
	return p * math.Float64frombits(exp2Bits[k&31]+uint64(k>>5)<<52)
}

// exp2Bits holds the bits of exp2Table's values.
var exp2Bits = func() (t [32]uint64) {
	for j := range t {
		t[j] = math.Float64bits(exp2Table[j])
	}
	return t
}()

// ln2/32 as a head with zeros in its low bits and a tail, so k·ln2By32Hi
// is exact for the k expFloat32 meets.
const (
	ln2By32Hi = 6.93147180369123816490e-01 / 32
	ln2By32Lo = 1.90821492927058770002e-10 / 32
)

// exp2Table holds 2^(j/32) for j in [0, 32).
var exp2Table = func() (t [32]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 32)
	}
	return t
}()

// expFor is e^x for a softmax's x ≤ 0 in T: math.Exp for float64,
// expFloat32 for float32.
func expFor[T float32 | float64](x float64) float64 {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return expFloat32(x)
	}
	return math.Exp(x)
}
