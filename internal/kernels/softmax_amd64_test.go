package kernels

import (
	"math"
	"testing"
)

// The vector softmax and its gradient compute what the Go ones compute,
// to the bit: the same exp32 in each lane, the same sums in the same
// order.
func TestSoftmaxVectorEqualsGo(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2 on this CPU: only the Go softmax runs")
	}
	for _, width := range []int{8, 9, 200, 203, 1000} {
		x64 := randoms(3*width, 41)
		x := make([]float32, len(x64))
		for i, v := range x64 {
			x[i] = float32(v * 40)
		}
		x[1] = float32(math.Inf(-1))
		x[width] = -90 // below exp32's smallest normal result
		for _, log := range []bool{false, true} {
			vec, scalar := make([]float32, len(x)), make([]float32, len(x))
			SoftmaxRows(vec, x, width, log)
			haveAVX2 = false
			SoftmaxRows(scalar, x, width, log)
			haveAVX2 = true
			for i := range vec {
				if math.Float32bits(vec[i]) != math.Float32bits(scalar[i]) {
					t.Fatalf("width %d, log %v, value %d (x %v): vector %v, Go %v", width, log, i, x[i], vec[i], scalar[i])
				}
			}
			g := make([]float32, len(x))
			for i, v := range randoms(len(x), 42) {
				g[i] = float32(v)
			}
			SoftmaxGradRows(vec, scalar, g, width, log)
			gradGo := make([]float32, len(x))
			haveAVX2 = false
			SoftmaxGradRows(gradGo, scalar, g, width, log)
			haveAVX2 = true
			for i := range vec {
				if math.Float32bits(vec[i]) != math.Float32bits(gradGo[i]) {
					t.Fatalf("gradient, width %d, log %v, value %d: vector %v, Go %v", width, log, i, vec[i], gradGo[i])
				}
			}
		}
	}
}
