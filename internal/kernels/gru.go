package kernels

import "gonum.org/v1/gonum/blas"

// The GRU over a sequence (see Sequence), as Keras 3's default
// (reset_after=True): gates in the kernel's column order update z, reset
// r, candidate, with a recurrent bias added to h·recurrent_kernel before
// the reset gate multiplies its candidate block:
//
//	m = h·recurrent_kernel + recurrent_bias
//	z = σ(p_z + m_z);  r = σ(p_r + m_r);  hh = tanh(p_h + r·m_h)
//	h = hh + z·(h - hh)
//
// The forward pass keeps, for every row and processed step, a work row
// of 5·Units values: z, r, hh, m_h and h.

// GRUWidth is the length of a GRU work row.
func (g Sequence) GRUWidth() int { return 5 * g.Units }

// GRUHOffset is where h starts in a GRU work row.
func (g Sequence) GRUHOffset() int { return 4 * g.Units }

// GRUWorkLen is the length of GRUForward's work: (Batch, Steps,
// GRUWidth).
func (g Sequence) GRUWorkLen() int { return g.Batch * g.Steps * g.GRUWidth() }

// GRUGradLen is the length of GRUBackward's result: the gradient of the
// projection and then of m (each Batch, Steps, 3·Units, in the
// projection's step order), then of h0 (Batch, Units).
func (g Sequence) GRUGradLen() int { return 2*g.Batch*g.Steps*3*g.Units + g.Batch*g.Units }

// GRUForward runs the sequence: proj (Batch, Steps, 3·Units) is
// x·kernel + input bias for every step, r the recurrent kernel (Units,
// 3·Units), rb the recurrent bias (3·Units, or nil), h0 the initial
// state (Batch, Units); it fills work (GRUWorkLen values). m is scratch
// of Batch·3·Units values.
func GRUForward[T float32 | float64](g Sequence, proj, r, rb, h0, work, m []T) {
	u, s := g.Units, g.Steps
	w := g.GRUWidth()
	byR := FixedB(blas.NoTrans, u, 3*u, r, 3*u)
	g.rows(w, func(lo, hi int) {
		mm := m[lo*3*u : hi*3*u]
		for k := range s {
			t := g.at(k)
			for b := range hi - lo {
				if rb != nil {
					copy(mm[b*3*u:(b+1)*3*u], rb)
				} else {
					clear(mm[b*3*u : (b+1)*3*u])
				}
			}
			hp, ldh := h0[lo*u:], u
			if k > 0 {
				hp, ldh = work[(lo*s+k-1)*w+g.GRUHOffset():], s*w
			}
			byR(hi-lo, hp, ldh, 1, mm, 3*u)
			for b := lo; b < hi; b++ {
				gruCell(work[(b*s+k)*w:(b*s+k+1)*w], proj[(b*s+t)*3*u:(b*s+t+1)*3*u], mm[(b-lo)*3*u:(b-lo+1)*3*u],
					previousH(g, work, w, h0, b, k), u)
			}
		}
	})
}

// previousH is the state entering step k of row b.
func previousH[T float32 | float64](g Sequence, work []T, width int, h0 []T, b, k int) []T {
	u := g.Units
	if k == 0 {
		return h0[b*u : (b+1)*u]
	}
	off := (b*g.Steps+k-1)*width + width - u // h is a work row's last block
	return work[off : off+u]
}

// gruCell writes one work row from the step's projection p and recurrent
// product m.
func gruCell[T float32 | float64](row, p, m, hPrev []T, u int) {
	zs, rs, hhs, mhs, h := row[:u], row[u:2*u], row[2*u:3*u], row[3*u:4*u], row[4*u:5*u]
	for j := range u {
		z := sigmoid(p[j] + m[j])
		r := sigmoid(p[u+j] + m[u+j])
		mh := m[2*u+j]
		hh := tanh(p[2*u+j] + r*mh)
		zs[j], rs[j], hhs[j], mhs[j] = z, r, hh, mh
		h[j] = hh + z*(hPrev[j]-hh)
	}
}

// GRUBackward writes into grad (GRUGradLen values) the gradients of the
// projection, of m (whose column sums are the recurrent bias's gradient)
// and of h0, given work from GRUForward and dwork, the gradient of work's
// values: only its h values are read.
func GRUBackward[T float32 | float64](g Sequence, work, dwork, r, h0, grad []T) {
	u, s := g.Units, g.Steps
	w := g.GRUWidth()
	n := g.Batch * s * 3 * u
	dproj, dm, dh0 := grad[:n], grad[n:2*n], grad[2*n:]
	byRT := FixedB(blas.Trans, 3*u, u, r, 3*u)
	g.rows(w, func(lo, hi int) {
		dh := make([]T, (hi-lo)*u) // the gradient reaching h from the steps after it
		for k := s - 1; k >= 0; k-- {
			t := g.at(k)
			for b := lo; b < hi; b++ {
				off := (b*s + k) * w
				o := (b*s + t) * 3 * u
				gruCellGrad(work[off:off+w], dwork[off:off+w], previousH(g, work, w, h0, b, k),
					dh[(b-lo)*u:(b-lo+1)*u], dproj[o:o+3*u], dm[o:o+3*u], u)
			}
			// dh (now the direct part, dh·z) gains dm·rᵀ.
			byRT(hi-lo, dm[(lo*s+t)*3*u:], s*3*u, 1, dh, u)
		}
		copy(dh0[lo*u:hi*u], dh)
	})
}

// gruCellGrad writes a step's gradients of the projection (dp) and of m
// (dm), and replaces dh by the part of the previous state's gradient
// that does not go through m.
func gruCellGrad[T float32 | float64](row, drow, hPrev, dh, dp, dm []T, u int) {
	zs, rs, hhs, mhs := row[:u], row[u:2*u], row[2*u:3*u], row[3*u:4*u]
	dhOut := drow[4*u : 5*u]
	for j := range u {
		z, r, hh, mh := zs[j], rs[j], hhs[j], mhs[j]
		dhj := dh[j] + dhOut[j]
		dz := dhj * (hPrev[j] - hh) * z * (1 - z)
		da := dhj * (1 - z) * (1 - hh*hh) // at the candidate's pre-activation
		dr := da * mh * r * (1 - r)
		dp[j], dp[u+j], dp[2*u+j] = dz, dr, da
		dm[j], dm[u+j], dm[2*u+j] = dz, dr, da*r
		dh[j] = dhj * z
	}
}

// GRUGradRecurrentKernel writes dr (Units, 3·Units), the recurrent
// kernel's gradient Σ h_prevᵀ·dm over rows and steps, from work, h0 and
// GRUBackward's result. hPrev is scratch of Batch·Steps·Units values.
func GRUGradRecurrentKernel[T float32 | float64](g Sequence, work, h0, grad, dr, hPrev []T) {
	n := g.Batch * g.Steps * 3 * g.Units
	recurrentKernelGrad(g, work, g.GRUWidth(), g.GRUHOffset(), h0, grad[n:2*n], 3, dr, hPrev)
}
