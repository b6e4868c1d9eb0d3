package kernels

import "gonum.org/v1/gonum/blas"

// The LSTM over a sequence (see Sequence): gates in the kernel's column
// order input, forget, cell, output (sigmoid, sigmoid, tanh, sigmoid),
// with tanh on the cell state. The forward pass keeps, for every row and
// processed step, a work row of 7·Units values: the four activated
// gates, then c, tanh(c) and h.

// LSTMWidth is the length of an LSTM work row.
func (g Sequence) LSTMWidth() int { return 7 * g.Units }

// LSTMCOffset and LSTMHOffset are where c and h start in an LSTM work row.
func (g Sequence) LSTMCOffset() int { return 4 * g.Units }
func (g Sequence) LSTMHOffset() int { return 6 * g.Units }

// LSTMWorkLen is the length of LSTMForward's work: (Batch, Steps,
// LSTMWidth).
func (g Sequence) LSTMWorkLen() int { return g.Batch * g.Steps * g.LSTMWidth() }

// LSTMGradLen is the length of LSTMBackward's result: the gradient of the
// projection (Batch, Steps, 4·Units, in the projection's step order),
// then of h0 and of c0 (Batch, Units each).
func (g Sequence) LSTMGradLen() int { return g.Batch*g.Steps*4*g.Units + 2*g.Batch*g.Units }

// LSTMForward runs the sequence: proj (Batch, Steps, 4·Units) is
// x·kernel + bias for every step, r the recurrent kernel (Units,
// 4·Units), h0 and c0 the initial states (Batch, Units); it fills work
// (WorkLen values).
func LSTMForward[T float32 | float64](g Sequence, proj, r, h0, c0, work []T) {
	u, s := g.Units, g.Steps
	w := g.LSTMWidth()
	ld := s * w // stride between batch rows of one step in work
	byR := FixedB(blas.NoTrans, u, 4*u, r, 4*u)
	g.rows(w, func(lo, hi int) {
		for k := range s {
			t := g.at(k)
			for b := lo; b < hi; b++ {
				copy(work[(b*s+k)*w:(b*s+k)*w+4*u], proj[(b*s+t)*4*u:(b*s+t+1)*4*u])
			}
			z := work[(lo*s+k)*w:]
			if k == 0 {
				byR(hi-lo, h0[lo*u:], u, 1, z, ld)
			} else {
				byR(hi-lo, work[(lo*s+k-1)*w+g.LSTMHOffset():], ld, 1, z, ld)
			}
			for b := lo; b < hi; b++ {
				row := work[(b*s+k)*w : (b*s+k+1)*w]
				lstmCell(row, previousCell(g, work, c0, b, k), u)
			}
		}
	})
}

// previousCell is the cell state entering step k of row b.
func previousCell[T float32 | float64](g Sequence, work, c0 []T, b, k int) []T {
	u := g.Units
	if k == 0 {
		return c0[b*u : (b+1)*u]
	}
	off := (b*g.Steps+k-1)*g.LSTMWidth() + g.LSTMCOffset()
	return work[off : off+u]
}

// lstmCell turns a work row's pre-activations (its first 4·units values)
// into the gates, then writes c and h.
func lstmCell[T float32 | float64](row, cPrev []T, u int) {
	in, forget, cand, out := row[:u], row[u:2*u], row[2*u:3*u], row[3*u:4*u]
	c, tc, h := row[4*u:5*u], row[5*u:6*u], row[6*u:7*u]
	for j := range u {
		i, f, g, o := sigmoid(in[j]), sigmoid(forget[j]), tanh(cand[j]), sigmoid(out[j])
		in[j], forget[j], cand[j], out[j] = i, f, g, o
		c[j] = f*cPrev[j] + i*g
		tc[j] = tanh(c[j])
		h[j] = o * tc[j]
	}
}

// LSTMBackward writes into grad (GradLen values) the gradients of the
// projection, h0 and c0, given work from LSTMForward and dwork, the
// gradient of work's values: only its c and h values are read (the
// sequence's outputs and final states are h and c; nothing else reads
// the gates or tanh(c)).
func LSTMBackward[T float32 | float64](g Sequence, work, dwork, r, c0, grad []T) {
	u, s := g.Units, g.Steps
	w := g.LSTMWidth()
	nProj := g.Batch * s * 4 * u
	dproj, dh0, dc0 := grad[:nProj], grad[nProj:nProj+g.Batch*u], grad[nProj+g.Batch*u:]
	byRT := FixedB(blas.Trans, 4*u, u, r, 4*u)
	g.rows(w, func(lo, hi int) {
		// dh and dc are the gradients reaching the step being
		// differentiated from the steps after it.
		dh := make([]T, (hi-lo)*u)
		dc := make([]T, (hi-lo)*u)
		for k := s - 1; k >= 0; k-- {
			t := g.at(k)
			for b := lo; b < hi; b++ {
				off := (b*s + k) * w
				lstmCellGrad(work[off:off+w], dwork[off:off+w], previousCell(g, work, c0, b, k),
					dh[(b-lo)*u:(b-lo+1)*u], dc[(b-lo)*u:(b-lo+1)*u], dproj[(b*s+t)*4*u:(b*s+t+1)*4*u], u)
			}
			// The gradient reaching the previous h: dz·rᵀ.
			byRT(hi-lo, dproj[(lo*s+t)*4*u:], s*4*u, 0, dh, u)
		}
		copy(dh0[lo*u:hi*u], dh)
		copy(dc0[lo*u:hi*u], dc)
	})
}

// lstmCellGrad writes a step's pre-activation gradient dz and replaces dc
// by the gradient reaching the previous cell state; dh (from the next
// step) is read.
func lstmCellGrad[T float32 | float64](row, drow, cPrev, dh, dc, dz []T, u int) {
	in, forget, cand, out, tanhC := row[:u], row[u:2*u], row[2*u:3*u], row[3*u:4*u], row[5*u:6*u]
	dcOut, dhOut := drow[4*u:5*u], drow[6*u:7*u]
	for j := range u {
		i, f, g, o := in[j], forget[j], cand[j], out[j]
		dhj := dh[j] + dhOut[j]
		tc := tanhC[j]
		dcj := dc[j] + dcOut[j] + dhj*o*(1-tc*tc)
		dz[j] = dcj * g * i * (1 - i)
		dz[u+j] = dcj * cPrev[j] * f * (1 - f)
		dz[2*u+j] = dcj * i * (1 - g*g)
		dz[3*u+j] = dhj * tc * o * (1 - o)
		dc[j] = dcj * f
	}
}

// LSTMGradRecurrentKernel writes dr (Units, 4·Units), the recurrent
// kernel's gradient Σ h_prevᵀ·dz over rows and steps, from work, h0 and
// the projection's gradient (the first part of LSTMBackward's result).
// hPrev is scratch of Batch·Steps·Units values.
func LSTMGradRecurrentKernel[T float32 | float64](g Sequence, work, h0, dproj, dr, hPrev []T) {
	recurrentKernelGrad(g, work, g.LSTMWidth(), g.LSTMHOffset(), h0, dproj, 4, dr, hPrev)
}
