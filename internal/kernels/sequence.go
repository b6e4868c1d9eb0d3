package kernels

import (
	"math"

	"github.com/kerasgo/kerasgo/internal/parallel"
	"gonum.org/v1/gonum/blas"
)

// Sequence is the shape of a recurrent layer (Keras's LSTM or GRU) run
// over a whole sequence: Batch rows, Steps time steps, Units units. Rows
// of the batch never meet, so each worker runs the whole sequence on its
// own rows, with one small matrix product per step for the recurrent
// kernel.
//
// The forward kernels read proj, the input projection x·kernel + bias of
// every step (Batch, Steps, gates·Units), and fill a work tensor (Batch,
// Steps, width): per row and processed step the activated gates, the
// states and whatever the backward pass needs. The backward kernels read
// the work and the gradient of its state values (the outputs are blocks
// of it).
type Sequence struct {
	Batch, Steps, Units int
	// Backwards processes the sequence from its last step (Keras's
	// go_backwards); work rows are in the order processed.
	Backwards bool
}

// at is the sequence index processed at step k.
func (g Sequence) at(k int) int {
	if g.Backwards {
		return g.Steps - 1 - k
	}
	return k
}

// rows runs f on contiguous ranges of batch rows, in parallel when the
// sequence (work rows of width values) is long enough to pay for it: one
// range per core, as each range multiplies its rows by the recurrent
// kernel at every step, and a product of fewer rows runs slower per row
// (8-row ranges made the LSTM(64) step 40% slower than 32-row ones).
func (g Sequence) rows(width int, f func(lo, hi int)) {
	parallelChunks(g.Batch, max(perCore(g.Batch), minPerWorker/max(g.Steps*width, 1)), f)
}

// recurrentKernelGrad writes dr (Units, gates·Units) = Σ h_prevᵀ·dz over
// rows and steps, where dz (Batch, Steps, gates·Units, in the
// projection's step order) is the gradient of h_prev·recurrent_kernel and
// h is found in work rows of width values at hOffset. hPrev is scratch
// of Batch·Steps·Units values.
func recurrentKernelGrad[T float32 | float64](g Sequence, work []T, width, hOffset int, h0, dz []T, gates int, dr, hPrev []T) {
	u, s := g.Units, g.Steps
	// hPrev row (b, t): the h that entered the step that read proj row
	// (b, t), so one product covers every row and step.
	parallel.For(g.Batch, func(b int) {
		for k := range s {
			dst := hPrev[(b*s+g.at(k))*u : (b*s+g.at(k)+1)*u]
			if k == 0 {
				copy(dst, h0[b*u:(b+1)*u])
			} else {
				off := (b*s+k-1)*width + hOffset
				copy(dst, work[off:off+u])
			}
		}
	})
	Gemm(blas.Trans, blas.NoTrans, u, gates*u, g.Batch*s, hPrev, dz[:g.Batch*s*gates*u], 0, dr)
}

// sigmoid is 1/(1+e^-x), computed in float64 and rounded once (for
// float32 with expFloat32, on whichever side keeps its argument ≤ 0).
func sigmoid[T float32 | float64](x T) T {
	var zero T
	if _, ok := any(zero).(float64); ok {
		return T(1 / (1 + math.Exp(-float64(x))))
	}
	if x >= 0 {
		return T(1 / (1 + expFloat32(-float64(x))))
	}
	e := expFloat32(float64(x))
	return T(e / (1 + e))
}

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
	e := expFloat32(-2 * a)
	return T(math.Copysign((1-e)/(1+e), float64(x)))
}
