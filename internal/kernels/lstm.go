package kernels

import (
	"math"

	"gonum.org/v1/gonum/blas"
)

// LSTMGeom is the shape of Keras's LSTM over a whole sequence: Batch
// rows, Steps time steps, Units units, gates in the kernel's column order
// input, forget, cell, output (sigmoid, sigmoid, tanh, sigmoid), with
// tanh on the cell state.
//
// The forward pass keeps, for every row and processed step, a work row
// of 7·Units values: the four activated gates, then c, tanh(c) and h. The
// backward pass and the outputs read it. Rows of the batch never meet, so
// each worker runs the whole sequence on its own rows.
type LSTMGeom struct {
	Batch, Steps, Units int
	// Backwards processes the sequence from its last step (Keras's
	// go_backwards); work rows are in the order processed.
	Backwards bool
}

// WorkWidth is the length of a work row: the four gates, c, tanh(c) and
// h, Units values each.
func (g LSTMGeom) WorkWidth() int { return 7 * g.Units }

// COffset and HOffset are where c and h start in a work row.
func (g LSTMGeom) COffset() int { return 4 * g.Units }
func (g LSTMGeom) HOffset() int { return 6 * g.Units }

// WorkLen is the length of the forward pass's work: (Batch, Steps,
// WorkWidth).
func (g LSTMGeom) WorkLen() int { return g.Batch * g.Steps * g.WorkWidth() }

// GradLen is the length of LSTMBackward's result: the gradient of the
// projection (Batch, Steps, 4·Units, in the projection's step order),
// then of h0 and of c0 (Batch, Units each).
func (g LSTMGeom) GradLen() int { return g.Batch*g.Steps*4*g.Units + 2*g.Batch*g.Units }

// at is the sequence index processed at step k.
func (g LSTMGeom) at(k int) int {
	if g.Backwards {
		return g.Steps - 1 - k
	}
	return k
}

// rows runs f on contiguous ranges of batch rows, in parallel when the
// sequence is long enough to pay for it.
func (g LSTMGeom) rows(f func(lo, hi int)) { parallelRows(g.Batch, g.Steps*6*g.Units, f) }

// LSTMForward runs the sequence: proj (Batch, Steps, 4·Units) is
// x·kernel + bias for every step, r the recurrent kernel (Units,
// 4·Units), h0 and c0 the initial states (Batch, Units); it fills work
// (WorkLen values).
func LSTMForward[T float32 | float64](g LSTMGeom, proj, r, h0, c0, work []T) {
	u, s := g.Units, g.Steps
	w := g.WorkWidth()
	ld := s * w // stride between batch rows of one step in work
	g.rows(func(lo, hi int) {
		for k := range s {
			t := g.at(k)
			for b := lo; b < hi; b++ {
				copy(work[(b*s+k)*w:(b*s+k)*w+4*u], proj[(b*s+t)*4*u:(b*s+t+1)*4*u])
			}
			z := work[(lo*s+k)*w:]
			if k == 0 {
				GemmStrided(blas.NoTrans, blas.NoTrans, hi-lo, 4*u, u, h0[lo*u:], u, r, 4*u, 1, z, ld)
			} else {
				GemmStrided(blas.NoTrans, blas.NoTrans, hi-lo, 4*u, u, work[(lo*s+k-1)*w+g.HOffset():], ld, r, 4*u, 1, z, ld)
			}
			for b := lo; b < hi; b++ {
				row := work[(b*s+k)*w : (b*s+k+1)*w]
				lstmCell(row, previousCell(g, work, c0, b, k), u)
			}
		}
	})
}

// previousCell is the cell state entering step k of row b.
func previousCell[T float32 | float64](g LSTMGeom, work, c0 []T, b, k int) []T {
	u := g.Units
	if k == 0 {
		return c0[b*u : (b+1)*u]
	}
	off := (b*g.Steps+k-1)*g.WorkWidth() + g.COffset()
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
func LSTMBackward[T float32 | float64](g LSTMGeom, work, dwork, r, c0, grad []T) {
	u, s := g.Units, g.Steps
	w := g.WorkWidth()
	nProj := g.Batch * s * 4 * u
	dproj, dh0, dc0 := grad[:nProj], grad[nProj:nProj+g.Batch*u], grad[nProj+g.Batch*u:]
	g.rows(func(lo, hi int) {
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
			GemmStrided(blas.NoTrans, blas.Trans, hi-lo, u, 4*u, dproj[(lo*s+t)*4*u:], s*4*u, r, 4*u, 0, dh, u)
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
func LSTMGradRecurrentKernel[T float32 | float64](g LSTMGeom, work, h0, dproj, dr, hPrev []T) {
	u, s := g.Units, g.Steps
	// hPrev row (b, t): the h that entered the step that read proj row
	// (b, t), so one product covers every row and step.
	ParallelFor(g.Batch, func(b int) {
		for k := range s {
			dst := hPrev[(b*s+g.at(k))*u : (b*s+g.at(k)+1)*u]
			if k == 0 {
				copy(dst, h0[b*u:(b+1)*u])
			} else {
				off := (b*s+k-1)*g.WorkWidth() + g.HOffset()
				copy(dst, work[off:off+u])
			}
		}
	})
	Gemm(blas.Trans, blas.NoTrans, u, 4*u, g.Batch*s, hPrev, dproj[:g.Batch*s*4*u], 0, dr)
}

// sigmoid is 1/(1+e^-x), computed in float64 and rounded once.
func sigmoid[T float32 | float64](x T) T { return T(1 / (1 + math.Exp(-float64(x)))) }

// tanh is the hyperbolic tangent. For float32 it is (1-e)/(1+e) with
// e = exp(-2|x|) in float64, which is within a float32 rounding of the
// true value and costs one exp (math.Tanh costs about two); below 2^-13
// tanh(x) rounds to x in float32.
func tanh[T float32 | float64](x T) T {
	var zero T
	if _, ok := any(zero).(float64); ok {
		return T(math.Tanh(float64(x)))
	}
	a := math.Abs(float64(x))
	if a < 0x1p-13 {
		return x
	}
	e := math.Exp(-2 * a)
	return T(math.Copysign((1-e)/(1+e), float64(x)))
}
