package kernels

import (
	"testing"
)

// The recurrent layers' float32 steps multiply by a kernel packed once
// (FixedB); their values equal those of products that pack it at every
// step, to the bit, forward and backward.
func TestRecurrentPackedKernelEqualsUnpacked(t *testing.T) {
	if packSgemmB == nil {
		t.Skip("this build's BLAS has no packed product (OpenBLAS, or a CPU without AVX2 and FMA)")
	}
	g := Sequence{Batch: 6, Steps: 30, Units: 16}
	u := g.Units
	f32 := func(n int, seed uint64) []float32 { return float32s(randoms(n, seed)) }
	run := func() (lstm, gru []float32) {
		proj, r, h0, c0 := f32(g.Batch*g.Steps*4*u, 51), f32(u*4*u, 52), f32(g.Batch*u, 53), f32(g.Batch*u, 54)
		work := make([]float32, g.LSTMWorkLen())
		LSTMForward(g, proj, r, h0, c0, work)
		grad := make([]float32, g.LSTMGradLen())
		LSTMBackward(g, work, f32(g.LSTMWorkLen(), 55), r, c0, grad)
		lstm = append(work, grad...)

		gproj, gr, rb := f32(g.Batch*g.Steps*3*u, 56), f32(u*3*u, 57), f32(3*u, 58)
		gwork := make([]float32, g.GRUWorkLen())
		GRUForward(g, gproj, gr, rb, h0, gwork, make([]float32, g.Batch*3*u))
		ggrad := make([]float32, g.GRUGradLen())
		GRUBackward(g, gwork, f32(g.GRUWorkLen(), 59), gr, h0, ggrad)
		return lstm, append(gwork, ggrad...)
	}
	packedLSTM, packedGRU := run()
	saved := packSgemmB
	packSgemmB = nil
	defer func() { packSgemmB = saved }()
	lstm, gru := run()
	for name, pair := range map[string][2][]float32{"LSTM": {packedLSTM, lstm}, "GRU": {packedGRU, gru}} {
		for i := range pair[1] {
			if pair[0][i] != pair[1][i] {
				t.Fatalf("%s: value %d is %v with the kernel packed once, %v packed at every step", name, i, pair[0][i], pair[1][i])
			}
		}
	}
}
