package kernels

import (
	"fmt"
	"math"
	"testing"
)

// gruDirect is Keras's GRU (reset_after) by its definition, one row and
// one step at a time: every processed step's h per row.
func gruDirect(g Sequence, proj, r, rb, h0 []float64) [][][]float64 {
	u := g.Units
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	var hs [][][]float64
	for b := range g.Batch {
		h := h0[b*u : (b+1)*u]
		var row [][]float64
		for k := range g.Steps {
			t := k
			if g.Backwards {
				t = g.Steps - 1 - k
			}
			p := proj[(b*g.Steps+t)*3*u:]
			m := make([]float64, 3*u)
			for j := range 3 * u {
				m[j] = rb[j]
				for i := range u {
					m[j] += h[i] * r[i*3*u+j]
				}
			}
			nh := make([]float64, u)
			for j := range u {
				z := sig(p[j] + m[j])
				rr := sig(p[u+j] + m[u+j])
				hh := math.Tanh(p[2*u+j] + rr*m[2*u+j])
				nh[j] = z*h[j] + (1-z)*hh
			}
			h = nh
			row = append(row, nh)
		}
		hs = append(hs, row)
	}
	return hs
}

// The forward pass matches the definition, and the backward pass the
// finite differences of a loss that weighs every h.
func TestGRUMatchesDefinitionAndGradients(t *testing.T) {
	for _, g := range []Sequence{{Batch: 3, Steps: 4, Units: 2}, {Batch: 2, Steps: 3, Units: 3, Backwards: true}, {Batch: 1, Steps: 1, Units: 1}} {
		t.Run(fmt.Sprintf("%+v", g), func(t *testing.T) {
			u := g.Units
			proj, r, rb := randoms(g.Batch*g.Steps*3*u, 51), randoms(u*3*u, 52), randoms(3*u, 53)
			h0 := randoms(g.Batch*u, 54)
			work := make([]float64, g.GRUWorkLen())
			GRUForward(g, proj, r, rb, h0, work, make([]float64, g.Batch*3*u))
			hs := gruDirect(g, proj, r, rb, h0)
			w, ho := g.GRUWidth(), g.GRUHOffset()
			for b := range g.Batch {
				for k := range g.Steps {
					off := (b*g.Steps+k)*w + ho
					closeAll(t, fmt.Sprintf("h row %d step %d", b, k), work[off:off+u], hs[b][k], 1e-12)
				}
			}
			weights := randoms(g.GRUWorkLen(), 55)
			loss := func() float64 {
				hs := gruDirect(g, proj, r, rb, h0)
				sum := 0.0
				for b := range g.Batch {
					for k := range g.Steps {
						off := (b*g.Steps+k)*w + ho
						sum += dot(weights[off:off+u], hs[b][k])
					}
				}
				return sum
			}
			dwork := append([]float64(nil), weights...)
			for i := range dwork {
				if i%w < ho {
					dwork[i] = 7 // only h is read
				}
			}
			grad := make([]float64, g.GRUGradLen())
			GRUBackward(g, work, dwork, r, h0, grad)
			dr := make([]float64, len(r))
			GRUGradRecurrentKernel(g, work, h0, grad, dr, make([]float64, g.Batch*g.Steps*u))
			n := len(proj)
			drb := make([]float64, 3*u)
			SumRows(grad[n:2*n], drb)
			inputs := []struct {
				name  string
				x, dx []float64
			}{
				{"proj", proj, grad[:n]},
				{"recurrent kernel", r, dr},
				{"recurrent bias", rb, drb},
				{"h0", h0, grad[2*n:]},
			}
			for _, in := range inputs {
				checkGradient(t, in.name, in.x, in.dx, loss, 1e-7)
			}
		})
	}
}

// A GRU(64) over 100 steps at batch 32, forward and backward.
func BenchmarkGRU(b *testing.B) {
	g := Sequence{Batch: 32, Steps: 100, Units: 64}
	u := g.Units
	proj, r, rb := make([]float32, g.Batch*g.Steps*3*u), make([]float32, u*3*u), make([]float32, 3*u)
	for i := range proj {
		proj[i] = float32(i%97) / 97
	}
	h0 := make([]float32, g.Batch*u)
	work, dwork, m := make([]float32, g.GRUWorkLen()), make([]float32, g.GRUWorkLen()), make([]float32, g.Batch*3*u)
	grad, dr, hPrev := make([]float32, g.GRUGradLen()), make([]float32, len(r)), make([]float32, g.Batch*g.Steps*u)
	for b.Loop() {
		GRUForward(g, proj, r, rb, h0, work, m)
		GRUBackward(g, work, dwork, r, h0, grad)
		GRUGradRecurrentKernel(g, work, h0, grad, dr, hPrev)
	}
}
