package kernels

import (
	"fmt"
	"math"
	"testing"
)

// lstmDirect is the LSTM by its definition, one row and one step at a
// time: it returns every processed step's (c, h) per row.
func lstmDirect(g Sequence, proj, r, h0, c0 []float64) (cs, hs [][][]float64) {
	u := g.Units
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	for b := range g.Batch {
		h, c := h0[b*u:(b+1)*u], c0[b*u:(b+1)*u]
		var rowC, rowH [][]float64
		for k := range g.Steps {
			t := k
			if g.Backwards {
				t = g.Steps - 1 - k
			}
			z := make([]float64, 4*u)
			for j := range 4 * u {
				z[j] = proj[(b*g.Steps+t)*4*u+j]
				for i := range u {
					z[j] += h[i] * r[i*4*u+j]
				}
			}
			nc, nh := make([]float64, u), make([]float64, u)
			for j := range u {
				nc[j] = sig(z[u+j])*c[j] + sig(z[j])*math.Tanh(z[2*u+j])
				nh[j] = sig(z[3*u+j]) * math.Tanh(nc[j])
			}
			h, c = nh, nc
			rowC, rowH = append(rowC, nc), append(rowH, nh)
		}
		cs, hs = append(cs, rowC), append(hs, rowH)
	}
	return cs, hs
}

// The forward pass matches the definition, and the backward pass the
// finite differences of a loss that weighs every c and h.
func TestLSTMMatchesDefinitionAndGradients(t *testing.T) {
	for _, g := range []Sequence{{Batch: 3, Steps: 4, Units: 2}, {Batch: 2, Steps: 3, Units: 3, Backwards: true}, {Batch: 1, Steps: 1, Units: 1}} {
		t.Run(fmt.Sprintf("%+v", g), func(t *testing.T) {
			u := g.Units
			proj, r := randoms(g.Batch*g.Steps*4*u, 31), randoms(u*4*u, 32)
			h0, c0 := randoms(g.Batch*u, 33), randoms(g.Batch*u, 34)
			work := make([]float64, g.LSTMWorkLen())
			LSTMForward(g, proj, r, h0, c0, work)
			cs, hs := lstmDirect(g, proj, r, h0, c0)
			for b := range g.Batch {
				for k := range g.Steps {
					off := (b*g.Steps + k) * g.LSTMWidth()
					closeAll(t, fmt.Sprintf("c row %d step %d", b, k), work[off+g.LSTMCOffset():off+g.LSTMCOffset()+u], cs[b][k], 1e-12)
					closeAll(t, fmt.Sprintf("h row %d step %d", b, k), work[off+g.LSTMHOffset():off+g.LSTMHOffset()+u], hs[b][k], 1e-12)
				}
			}
			// loss = Σ weight·value over every c and h.
			weights := randoms(g.LSTMWorkLen(), 35)
			loss := func(proj, r, h0, c0 []float64) float64 {
				cs, hs := lstmDirect(g, proj, r, h0, c0)
				sum := 0.0
				for b := range g.Batch {
					for k := range g.Steps {
						off := (b*g.Steps + k) * g.LSTMWidth()
						sum += dot(weights[off+g.LSTMCOffset():off+g.LSTMCOffset()+u], cs[b][k]) + dot(weights[off+g.LSTMHOffset():off+g.LSTMHOffset()+u], hs[b][k])
					}
				}
				return sum
			}
			dwork := append([]float64(nil), weights...)
			for i := range dwork {
				if j := i % g.LSTMWidth(); j < g.LSTMCOffset() || (j >= g.LSTMCOffset()+u && j < g.LSTMHOffset()) {
					dwork[i] = 7 // the gates and tanh(c) are not read
				}
			}
			grad := make([]float64, g.LSTMGradLen())
			LSTMBackward(g, work, dwork, r, c0, grad)
			dr := make([]float64, len(r))
			LSTMGradRecurrentKernel(g, work, h0, grad, dr, make([]float64, g.Batch*g.Steps*u))
			nProj := len(proj)
			inputs := []struct {
				name string
				x    []float64
				dx   []float64
			}{
				{"proj", proj, grad[:nProj]},
				{"recurrent kernel", r, dr},
				{"h0", h0, grad[nProj : nProj+g.Batch*u]},
				{"c0", c0, grad[nProj+g.Batch*u:]},
			}
			for _, in := range inputs {
				checkGradient(t, in.name, in.x, in.dx, func() float64 { return loss(proj, r, h0, c0) }, 1e-7)
			}
		})
	}
}

// On many rows the workers split the batch; the result equals one
// worker's to the last bit.
func TestLSTMParallelEqualsSequential(t *testing.T) {
	g := Sequence{Batch: 8, Steps: 200, Units: 8}
	u := g.Units
	proj, r := randoms(g.Batch*g.Steps*4*u, 41), randoms(u*4*u, 42)
	h0, c0 := randoms(g.Batch*u, 43), randoms(g.Batch*u, 44)
	work := make([]float64, g.LSTMWorkLen())
	LSTMForward(g, proj, r, h0, c0, work)
	grad := make([]float64, g.LSTMGradLen())
	LSTMBackward(g, work, randoms(g.LSTMWorkLen(), 45), r, c0, grad)
	for b := range g.Batch {
		one := Sequence{Batch: 1, Steps: g.Steps, Units: u}
		w1 := make([]float64, one.LSTMWorkLen())
		LSTMForward(one, proj[b*g.Steps*4*u:(b+1)*g.Steps*4*u], r, h0[b*u:(b+1)*u], c0[b*u:(b+1)*u], w1)
		closeAll(t, fmt.Sprintf("row %d", b), work[b*len(w1):(b+1)*len(w1)], w1, 0)
	}
}

// The demo-sized LSTM(64) over 100 steps at batch 32, forward and
// backward.
func BenchmarkLSTM(b *testing.B) {
	g := Sequence{Batch: 32, Steps: 100, Units: 64}
	u := g.Units
	proj, r := make([]float32, g.Batch*g.Steps*4*u), make([]float32, u*4*u)
	for i := range proj {
		proj[i] = float32(i%97) / 97
	}
	h0, c0 := make([]float32, g.Batch*u), make([]float32, g.Batch*u)
	work, dwork := make([]float32, g.LSTMWorkLen()), make([]float32, g.LSTMWorkLen())
	grad, dr, hPrev := make([]float32, g.LSTMGradLen()), make([]float32, len(r)), make([]float32, g.Batch*g.Steps*u)
	for b.Loop() {
		LSTMForward(g, proj, r, h0, c0, work)
		LSTMBackward(g, work, dwork, r, c0, grad)
		LSTMGradRecurrentKernel(g, work, h0, grad, dr, hPrev)
	}
}

// The float32 tanh is within one float32 rounding of the true value.
func TestTanhFloat32(t *testing.T) {
	for i := -200000; i <= 200000; i++ {
		x := float32(i) * 1e-4 * float32(math.Abs(float64(i))) * 1e-4 // dense near 0, out to ±400
		got, want := tanh(x), math.Tanh(float64(x))
		if ulp := math.Abs(float64(math.Nextafter32(float32(want), float32(math.Inf(1)))) - want); math.Abs(float64(got)-want) > ulp {
			t.Fatalf("tanh(%v) = %v, want %v", x, got, want)
		}
	}
}
