package ops

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// machineEpsilon is the spacing of floats near 1 in b's dtype, as
// jnp.finfo(dtype).eps: the unit of the default cutoffs below.
func machineEpsilon(b Builder) float64 {
	if b.DType() == backend.Float32 {
		return float64(math.Nextafter32(1, 2) - 1)
	}
	return math.Nextafter(1, 2) - 1
}

// Pinv is the Moore-Penrose pseudo-inverse of x (..., m, n), Keras's
// ops.linalg.pinv: from the reduced SVD, each singular value above rcond
// times the largest inverted and the others dropped. rcond 0 (or less)
// is Keras's None: 10·max(m, n)·eps of the dtype, as JAX's.
func Pinv(b Builder, x Value, rcond float64) Value {
	if missing(b, "Pinv", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	if len(s) < 2 {
		return failf(b, "Pinv", s, "the input %v must hold matrices (..., m, n)", s)
	}
	if rcond <= 0 {
		rcond = 10 * float64(max(s[len(s)-1], s[len(s)-2])) * machineEpsilon(b)
	}
	u, sv, vh := Svd(b, x, SvdOptions{ReducedMatrices: true})
	inverse := keptInverse(b, sv, rcond, false)
	// v·diag(1/s)·uᵀ
	return Matmul(b, b.Mul(Swapaxes(b, vh, -1, -2), ExpandDims(b, inverse, -2)), Swapaxes(b, u, -1, -2))
}

// keptInverse is 1/s for the singular values s (..., k), descending,
// above rcond times the largest (at or above with orEqual), and 0 for the
// others.
func keptInverse(b Builder, s Value, rcond float64, orEqual bool) Value {
	cutoff := b.Mul(sliceAxis(b, s, len(s.Shape())-1, 0, 1), scalar(b, rcond))
	kept := b.Greater(s, cutoff)
	if orEqual {
		kept = GreaterEqual(b, s, cutoff)
	}
	return maskedDiv(b, filled(b, s.Shape(), 1), s, b.StopGradient(kept))
}

// MatrixRank is the number of singular values of x (..., m, n) above tol,
// Keras's ops.linalg.matrix_rank, as a whole number in the float dtype.
// tol 0 (or less) is Keras's None: the largest singular value times
// max(m, n)·eps of the dtype, as JAX's.
func MatrixRank(b Builder, x Value, tol float64) Value {
	if missing(b, "MatrixRank", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	if len(s) < 2 {
		return failf(b, "MatrixRank", s, "the input %v must hold matrices (..., m, n)", s)
	}
	_, sv, _ := Svd(b, b.StopGradient(x), SvdOptions{SingularValuesOnly: true})
	last := len(sv.Shape()) - 1
	var cutoff Value
	if tol > 0 {
		cutoff = scalar(b, tol)
	} else {
		cutoff = b.Mul(sliceAxis(b, sv, last, 0, 1), scalar(b, float64(max(s[len(s)-1], s[len(s)-2]))*machineEpsilon(b)))
	}
	return b.Sum(b.Greater(sv, cutoff), last)
}

// Lstsq is the least-squares solution x of a·x ≈ rhs for a (m, n) and
// rhs (m,) or (m, k), Keras's ops.linalg.lstsq: x = v·diag(1/s)·uᵀ·rhs
// over the singular values at or above rcond times the largest. rcond 0
// (or less) is Keras's None: max(m, n)·eps of the dtype, as JAX's.
func Lstsq(b Builder, a, rhs Value, rcond float64) Value {
	const op = "Lstsq"
	if missing(b, op, []string{"a", "b"}, a, rhs) {
		return b.Fail(nil, b.Err())
	}
	as, bs := a.Shape(), rhs.Shape()
	if len(as) != 2 {
		return failf(b, op, as, "a %v must be a matrix (m, n), as in Keras", as)
	}
	if (len(bs) != 1 && len(bs) != 2) || bs[0] != as[0] {
		return failf(b, op, bs, "b %v must be (m,) or (m, k) with a's m = %d", bs, as[0])
	}
	if rcond <= 0 {
		rcond = float64(max(as[0], as[1])) * machineEpsilon(b)
	}
	vector := len(bs) == 1
	if vector {
		rhs = b.Reshape(rhs, Shape{bs[0], 1})
	}
	u, sv, vh := Svd(b, a, SvdOptions{ReducedMatrices: true})
	inverse := b.Reshape(keptInverse(b, sv, rcond, true), Shape{sv.Shape()[0], 1})
	x := Matmul(b, Swapaxes(b, vh, -1, -2), b.Mul(inverse, Matmul(b, Swapaxes(b, u, -1, -2), rhs)))
	if vector {
		return b.Reshape(x, Shape{as[1]})
	}
	return x
}
