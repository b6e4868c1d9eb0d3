package ops

import "github.com/kerasgo/kerasgo/keras/backend"

// The linear algebra ops work on the last two axes of a tensor (...,
// rows, cols), batched over the others. kerasgo composes them from
// matrix operations, unrolled for the matrix's size when the computation
// is built: n steps of Gaussian elimination with partial pivoting (the
// pivot row picked by comparisons and swapped in by masks, as LAPACK's
// getrf picks it), Householder reflections for QR (qr.go), and Jacobi
// rotations for the symmetric eigenproblem and the SVD (eigh.go,
// svd.go), so they run on every engine and are differentiable through
// the same ops. The unrolled form suits the small matrices layers use (up
// to a few dozen rows); an engine's own factorizations would serve large
// ones.

// square checks that x holds square matrices and returns n.
func square(b Builder, op string, x Value) (int, bool) {
	if missing(b, op, []string{"x"}, x) {
		return 0, false
	}
	s := x.Shape()
	if len(s) < 2 || s[len(s)-1] != s[len(s)-2] || s[len(s)-1] == 0 {
		failf(b, op, s, "the input %v must hold square matrices (..., n, n)", s)
		return 0, false
	}
	return s[len(s)-1], true
}

// rowsOf splits x (..., n, m) into its n rows, each (..., 1, m).
func rowsOf(b Builder, x Value) []Value {
	s := x.Shape()
	a := len(s) - 2
	rows := make([]Value, s[a])
	for i := range rows {
		rows[i] = sliceAxis(b, x, a, i, 1)
	}
	return rows
}

// entry is row[..., 0, j], kept (..., 1, 1).
func entry(b Builder, row Value, j int) Value {
	return sliceAxis(b, row, len(row.Shape())-1, j, 1)
}

// joinRows stacks rows (..., 1, m) into (..., n, m).
func joinRows(b Builder, rows []Value) Value {
	if len(rows) == 1 {
		return rows[0]
	}
	return b.Concat(len(rows[0].Shape())-2, rows...)
}

// elimination is an LU factorization with partial pivoting of the
// augmented rows (each (..., 1, n+k), the first n columns the matrix):
// the combined LU rows as LAPACK's getrf leaves them (multipliers below
// the diagonal), then the pivots (the row swapped with row k at step k,
// as whole numbers in the float dtype), and the permutation's sign.
type elimination struct {
	rows   []Value
	pivots []Value
	sign   Value
}

func eliminate(b Builder, rows []Value, n int) elimination {
	e := elimination{rows: append([]Value(nil), rows...), sign: scalar(b, 1)}
	zero, one := scalar(b, 0), scalar(b, 1)
	for k := 0; k < n; k++ {
		// pick the first row i >= k of the largest |row_i[k]|
		mags := make([]Value, n)
		for i := k; i < n; i++ {
			mags[i] = b.Abs(b.StopGradient(entry(b, e.rows[i], k)))
		}
		pick := make([]Value, n)
		pivot := zero
		for i := k; i < n; i++ {
			p := one
			for j := k; j < n; j++ {
				switch {
				case j < i: // earlier rows must be strictly smaller
					p = b.Mul(p, b.Greater(mags[i], mags[j]))
				case j > i: // later rows no larger
					p = b.Mul(p, b.Sub(one, b.Greater(mags[j], mags[i])))
				}
			}
			pick[i] = p
			pivot = b.Add(pivot, b.Mul(p, scalar(b, float64(i))))
		}
		// swap the picked row into place, by masks
		top := e.rows[k]
		chosen := b.Mul(pick[k], top)
		for i := k + 1; i < n; i++ {
			chosen = b.Add(chosen, b.Mul(pick[i], e.rows[i]))
			e.rows[i] = b.Add(e.rows[i], b.Mul(pick[i], b.Sub(top, e.rows[i])))
		}
		e.rows[k] = chosen
		e.sign = b.Mul(e.sign, b.Sub(one, b.Mul(b.Sub(one, pick[k]), scalar(b, 2))))
		e.pivots = append(e.pivots, pivot)
		// eliminate below, keeping the multipliers in place of the zeros
		d := entry(b, e.rows[k], k)
		width := e.rows[k].Shape()[len(e.rows[k].Shape())-1]
		keep := make([]float64, width) // 1 at columns > k: the ones elimination changes
		for j := k + 1; j < width; j++ {
			keep[j] = 1
		}
		mask := b.Constant(keep, Shape{1, width})
		at := make([]float64, width) // 1 at column k: where the multiplier goes
		at[k] = 1
		place := b.Constant(at, Shape{1, width})
		for i := k + 1; i < n; i++ {
			f := b.Div(entry(b, e.rows[i], k), d)
			updated := b.Sub(e.rows[i], b.Mul(b.Mul(f, e.rows[k]), mask))
			e.rows[i] = b.Add(b.Mul(updated, b.Sub(one, place)), b.Mul(f, place))
		}
	}
	return e
}

// LuFactor is the LU factorization with partial pivoting of x (..., n,
// n), as Keras's (SciPy's) lu_factor: the combined matrix (U on and above
// the diagonal, L's multipliers below) and the pivots (..., n), whole
// numbers in the float dtype (Keras returns int32).
func LuFactor(b Builder, x Value) (lu, pivots Value) {
	n, ok := square(b, "LuFactor", x)
	if !ok {
		bad := b.Fail(nil, b.Err())
		return bad, bad
	}
	e := eliminate(b, rowsOf(b, x), n)
	lead := x.Shape()[:len(x.Shape())-2]
	ps := make([]Value, n)
	for i, p := range e.pivots {
		ps[i] = b.Reshape(p, append(lead.Clone(), 1))
	}
	piv := ps[0]
	if n > 1 {
		piv = b.Concat(len(lead), ps...)
	}
	return joinRows(b, e.rows), piv
}

// Slogdet is the sign of det(x) and the log of its magnitude.
func Slogdet(b Builder, x Value) (sign, logAbsDet Value) {
	n, ok := square(b, "Slogdet", x)
	if !ok {
		bad := b.Fail(nil, b.Err())
		return bad, bad
	}
	e := eliminate(b, rowsOf(b, x), n)
	sign, logAbs := e.sign, scalar(b, 0)
	for k := 0; k < n; k++ {
		d := entry(b, e.rows[k], k)
		sign = b.Mul(sign, Sign(b, d))
		logAbs = b.Add(logAbs, b.Log(b.Abs(d)))
	}
	lead := x.Shape()[:len(x.Shape())-2].Clone()
	return b.Reshape(sign, lead), b.Reshape(logAbs, lead)
}

// Det is the determinant of x (..., n, n).
func Det(b Builder, x Value) Value {
	n, ok := square(b, "Det", x)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	e := eliminate(b, rowsOf(b, x), n)
	d := e.sign
	for k := 0; k < n; k++ {
		d = b.Mul(d, entry(b, e.rows[k], k))
	}
	return b.Reshape(d, x.Shape()[:len(x.Shape())-2].Clone())
}

// Logdet is log|det(x)|, Keras's logdet (the log of the magnitude from
// slogdet).
func Logdet(b Builder, x Value) Value {
	_, l := Slogdet(b, x)
	return l
}

// Solve solves a·x = rhs for x, a (..., n, n) and rhs (..., n, k), or
// (n) for one vector (NumPy 2's rule).
func Solve(b Builder, a, rhs Value) Value {
	n, ok := square(b, "Solve", a)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	rhs, vector, ok := rightHandSide(b, "Solve", a, rhs, n)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	rs := rhs.Shape()
	lead, err := backend.BroadcastShapes(a.Shape()[:len(a.Shape())-2], rs[:len(rs)-2])
	if err != nil {
		return failf(b, "Solve", a.Shape(), "the batch axes of a %v and b %v do not broadcast", a.Shape(), rhs.Shape())
	}
	a = broadcastTo(b, a, append(lead.Clone(), n, n))
	rhs = broadcastTo(b, rhs, append(lead.Clone(), n, rs[len(rs)-1]))
	aug := b.Concat(len(lead)+1, a, rhs)
	e := eliminate(b, rowsOf(b, aug), n)
	k := rs[len(rs)-1]
	x := backSubstitute(b, e.rows, n, k)
	if vector {
		return Squeeze(b, x, -1)
	}
	return x
}

// rightHandSide reads a solve's b: (..., n, k), or (n) for one vector
// (NumPy 2's rule: only a 1-D b is a vector), returned as (..., n, k).
func rightHandSide(b Builder, op string, a, rhs Value, n int) (Value, bool, bool) {
	if rhs == nil {
		failf(b, op, a.Shape(), "argument b is nil")
		return nil, false, false
	}
	vector := len(rhs.Shape()) == 1
	if vector {
		rhs = ExpandDims(b, rhs, -1)
	}
	if rs := rhs.Shape(); len(rs) < 2 || rs[len(rs)-2] != n {
		failf(b, op, a.Shape(), "b of shape %v for a of shape %v: want (..., %d, k) or (%d)", rhs.Shape(), a.Shape(), n, n)
		return nil, false, false
	}
	return rhs, vector, true
}

// backSubstitute solves the upper triangle of rows (each (..., 1, n+k),
// the right-hand sides after column n) from the last row up.
func backSubstitute(b Builder, rows []Value, n, k int) Value {
	xs := make([]Value, n)
	last := len(rows[0].Shape()) - 1
	for i := n - 1; i >= 0; i-- {
		acc := sliceAxis(b, rows[i], last, n, k)
		for j := i + 1; j < n; j++ {
			acc = b.Sub(acc, b.Mul(entry(b, rows[i], j), xs[j]))
		}
		xs[i] = b.Div(acc, entry(b, rows[i], i))
	}
	return joinRows(b, xs)
}

// Inv is the inverse of x (..., n, n).
func Inv(b Builder, x Value) Value {
	n, ok := square(b, "Inv", x)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	eye := broadcastTo(b, Identity(b, n), x.Shape())
	return Solve(b, x, eye)
}

// SolveTriangular solves a·x = rhs for the triangular a (lower, or upper
// when lower is false) by substitution; rhs is (..., n, k), or (n) for
// one vector.
func SolveTriangular(b Builder, a, rhs Value, lower bool) Value {
	n, ok := square(b, "SolveTriangular", a)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	rhs, vector, ok := rightHandSide(b, "SolveTriangular", a, rhs, n)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	arows, brows := rowsOf(b, a), rowsOf(b, rhs)
	xs := make([]Value, n)
	order := make([]int, n)
	for i := range order {
		order[i] = i
		if !lower {
			order[i] = n - 1 - i
		}
	}
	for _, i := range order {
		acc := brows[i]
		for _, j := range order {
			if j == i {
				break
			}
			acc = b.Sub(acc, b.Mul(entry(b, arows[i], j), xs[j]))
		}
		xs[i] = b.Div(acc, entry(b, arows[i], i))
	}
	x := joinRows(b, xs)
	if vector {
		return Squeeze(b, x, -1)
	}
	return x
}

// Cholesky is the lower triangular L with L·Lᵀ = x for the symmetric
// positive definite x (..., n, n), or its transpose with upper. It reads
// (x + xᵀ)/2, so that its gradient is symmetric, as JAX's.
func Cholesky(b Builder, x Value, upper bool) Value {
	n, ok := square(b, "Cholesky", x)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	x = b.Mul(b.Add(x, Swapaxes(b, x, -1, -2)), scalar(b, 0.5))
	rows := rowsOf(b, x)
	l := make([][]Value, n)
	for i := range l {
		l[i] = make([]Value, n)
	}
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			s := entry(b, rows[i], j)
			for k := 0; k < j; k++ {
				s = b.Sub(s, b.Mul(l[i][k], l[j][k]))
			}
			if i == j {
				l[j][j] = b.Sqrt(s)
			} else {
				l[i][j] = b.Div(s, l[j][j])
			}
		}
	}
	zero := filled(b, l[0][0].Shape(), 0) // above the diagonal
	out := make([]Value, n)
	for i := 0; i < n; i++ {
		cells := make([]Value, n)
		for j := 0; j < n; j++ {
			if j <= i {
				cells[j] = l[i][j]
			} else {
				cells[j] = zero
			}
		}
		if n == 1 {
			out[i] = cells[0]
		} else {
			out[i] = b.Concat(len(x.Shape())-1, cells...)
		}
	}
	m := joinRows(b, out)
	if upper {
		return Swapaxes(b, m, -1, -2)
	}
	return m
}

// CholeskyInverse is the inverse of L·Lᵀ from its Cholesky factor L
// (lower, or upper Lᵀ when upper).
func CholeskyInverse(b Builder, x Value, upper bool) Value {
	n, ok := square(b, "CholeskyInverse", x)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	l := x
	if upper {
		l = Swapaxes(b, x, -1, -2)
	}
	eye := broadcastTo(b, Identity(b, n), x.Shape())
	y := SolveTriangular(b, l, eye, true)       // L⁻¹
	return Matmul(b, Swapaxes(b, y, -1, -2), y) // L⁻ᵀ·L⁻¹
}
