package ops

// QrMode is Keras's qr mode.
type QrMode string

// The QR modes.
const (
	// QrReduced gives q (..., m, k) and r (..., k, n), k = min(m, n):
	// Keras's default.
	QrReduced QrMode = "reduced"
	// QrComplete gives q (..., m, m) and r (..., m, n).
	QrComplete QrMode = "complete"
)

// Qr is the QR decomposition x = q·r of x (..., m, n): q with orthonormal
// columns, r upper triangular, Keras's ops.linalg.qr. mode "" is
// QrReduced.
//
// It is LAPACK's Householder QR (geqrf, then orgqr for q), so q and r
// have LAPACK's signs, as Keras's backends give them: each reflection
// sends its column to -sign(x_kk)·‖x‖, and the last row of a square or
// wide matrix is not reflected. The reflections are whole-matrix
// products, unrolled for the matrix's size; like the other linear algebra
// ops it suits small matrices, and is differentiable through the same
// ops (for m ≥ n, where the factors are unique).
func Qr(b Builder, x Value, mode QrMode) (q, r Value) {
	const op = "Qr"
	fail := func() (Value, Value) { return b.Fail(nil, b.Err()), b.Fail(nil, b.Err()) }
	if missing(b, op, []string{"x"}, x) {
		return fail()
	}
	s := x.Shape()
	if len(s) < 2 || s[len(s)-1] == 0 || s[len(s)-2] == 0 {
		failf(b, op, s, "the input %v must hold matrices (..., m, n)", s)
		return fail()
	}
	switch mode {
	case "", QrReduced, QrComplete:
	default:
		failf(b, op, s, "mode %q: use QrReduced or QrComplete", mode)
		return fail()
	}
	rowAxis, colAxis := len(s)-2, len(s)-1
	m, n := s[rowAxis], s[colAxis]
	k := min(m, n)
	r = x
	q = Eye(b, m, m, 0)
	for j := range k {
		if m-j == 1 {
			break // LAPACK leaves a one-element column as it is (tau = 0)
		}
		col := sliceAxis(b, r, colAxis, j, 1) // (..., m, 1)
		below := make([]float64, m)           // rows j.. of the column
		unit := make([]float64, m)
		for i := j; i < m; i++ {
			below[i] = 1
		}
		unit[j] = 1
		part := b.Mul(col, b.Constant(below, Shape{m, 1}))
		alpha := sliceAxis(b, col, rowAxis, j, 1) // (..., 1, 1)
		norm := b.Sqrt(Sum(b, b.Square(part), Axis(rowAxis), KeepDims()))
		beta := Where(b, GreaterEqual(b, alpha, scalar(b, 0)), b.Neg(norm), norm)
		v := b.Sub(part, b.Mul(beta, b.Constant(unit, Shape{m, 1}))) // Householder vector
		// Where the column is already zero below the diagonal, LAPACK
		// does not reflect it (tau = 0): neither does this.
		tail := b.Sub(Sum(b, b.Square(part), Axis(rowAxis), KeepDims()), b.Square(alpha))
		reflect := b.StopGradient(b.Greater(tail, scalar(b, 0)))
		vv := Sum(b, b.Square(v), Axis(rowAxis), KeepDims())
		scale := maskedDiv(b, scalar(b, 2), vv, reflect)
		vt := Swapaxes(b, v, -1, -2)
		r = b.Sub(r, b.Mul(scale, Matmul(b, v, Matmul(b, vt, r))))
		q = b.Sub(q, b.Mul(scale, Matmul(b, Matmul(b, q, v), vt)))
	}
	r = Triu(b, r, 0)
	if len(q.Shape()) < len(s) { // no reflection: q is still the identity
		q = BroadcastTo(b, q, append(s[:rowAxis].Clone(), m, m)...)
	}
	if mode == QrComplete || m == k {
		return q, r // the reduced factors of a square or wide matrix are the complete ones
	}
	return sliceAxis(b, q, colAxis, 0, k), sliceAxis(b, r, rowAxis, 0, k)
}
