package kernels

import "math"

// The constants of exp32 (Cephes's expf), as float32.
const (
	exp32Log2e = float32(1.44269504088896341)
	exp32C1    = float32(0.693359375) // ln 2 = C1 + C2, C1 exact in few bits
	exp32C2    = float32(-2.12194440e-4)
	exp32P0    = float32(1.9875691500e-4)
	exp32P1    = float32(1.3981999507e-3)
	exp32P2    = float32(8.3334519073e-3)
	exp32P3    = float32(4.1665795894e-2)
	exp32P4    = float32(1.6666665459e-1)
	exp32P5    = float32(5.0000001201e-1)
	// exp32Lo is ln of the smallest normal float32: below it exp32 is 0.
	exp32Lo = float32(-87.33654475)
	// exp32Hi is 127.5·ln 2, the largest x for which 2^n (n = x·log2(e)
	// rounded) is a finite float32: larger x give e^exp32Hi.
	exp32Hi = float32(88.3762626647949)
)

// exp32 is e^x in float32 by Cephes's expf (within 2 ulp of the true
// value for results of at least the smallest normal float32, 0 below;
// it is meant for x ≤ 0, a softmax's shifted values, and saturates at
// e^exp32Hi, short of the largest float32, above exp32Hi),
// computed exactly as the vector kernel computes each lane: every
// product is rounded on its own (the conversions keep Go from fusing
// it into a multiply-add), so the two agree to the bit.
func exp32(x float32) float32 {
	if x != x {
		return x
	}
	if x < exp32Lo {
		return 0
	}
	x = min(x, exp32Hi)
	n := float32(math.Floor(float64(float32(x*exp32Log2e) + 0.5)))
	r := x - float32(n*exp32C1)
	r -= float32(n * exp32C2)
	z := float32(r * r)
	y := float32(exp32P0*r) + exp32P1
	y = float32(y*r) + exp32P2
	y = float32(y*r) + exp32P3
	y = float32(y*r) + exp32P4
	y = float32(y*r) + exp32P5
	y = float32(y*z) + r
	y++
	return y * math.Float32frombits(uint32(int32(n)+127)<<23)
}
