package ops

// SvdOptions are Keras's svd arguments beyond the input. The zero value
// is Keras's default: full matrices, with u and vh.
type SvdOptions struct {
	// ReducedMatrices gives u (..., m, k) and vh (..., k, n), k = min(m,
	// n): Keras's full_matrices=False.
	ReducedMatrices bool
	// SingularValuesOnly computes s alone, u and vh being nil: Keras's
	// compute_uv=False.
	SingularValuesOnly bool
}

// Svd is the singular value decomposition x = u·diag(s)·vh of x (..., m,
// n), Keras's ops.linalg.svd: s (..., k) descending, k = min(m, n); u
// (..., m, m) and vh (..., n, n), or with ReducedMatrices (..., m, k) and
// (..., k, n).
//
// It is the one-sided Jacobi method, unrolled for the matrix's size:
// pairs of columns are rotated until they are orthogonal (the rotation
// Eigh applies to xᵀx, without forming it), ten sweeps; s are the
// columns' norms, u the columns divided by them, and vh the accumulated
// rotations. A pair of singular vectors' common sign is not fixed by the
// problem: Keras's backends (each LAPACK routine) pick their own, and so
// does this one. u's columns beyond k, for full matrices that are not
// square, complete an orthonormal basis (from u's complete QR
// decomposition); any such basis is right, and LAPACK's is another. Differentiable where the
// singular values are distinct and nonzero, as JAX's svd (which
// differentiates u and vh only with ReducedMatrices).
func Svd(b Builder, x Value, o SvdOptions) (u, s, vh Value) {
	const op = "Svd"
	if missing(b, op, []string{"x"}, x) {
		f := b.Fail(nil, b.Err())
		return f, f, f
	}
	shape := x.Shape()
	if len(shape) < 2 || shape[len(shape)-1] == 0 || shape[len(shape)-2] == 0 {
		f := failf(b, op, shape, "the input %v must hold matrices (..., m, n)", shape)
		return f, f, f
	}
	m, n := shape[len(shape)-2], shape[len(shape)-1]
	if m < n { // x = (xᵀ's)ᵀ: u and vh trade places
		ut, st, vht := Svd(b, Swapaxes(b, x, -1, -2), o)
		if o.SingularValuesOnly {
			return nil, st, nil
		}
		return Swapaxes(b, vht, -1, -2), st, Swapaxes(b, ut, -1, -2)
	}
	a, v := x, Eye(b, n, n, 0)
	rowAxis := len(shape) - 2
	column := func(a Value, j int) Value { return sliceAxis(b, a, len(shape)-1, j, 1) }
	dot := func(p, q Value) Value { return Sum(b, b.Mul(p, q), Axis(rowAxis), KeepDims()) }
	for range jacobiSweeps {
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				ap, aq := column(a, p), column(a, q)
				theta := b.Mul(Arctan2(b, b.Mul(dot(ap, aq), scalar(b, 2)), b.Sub(dot(aq, aq), dot(ap, ap))), scalar(b, 0.5))
				j := rotation(b, n, p, q, b.Cos(theta), b.Sin(theta))
				a = Matmul(b, a, j)
				v = Matmul(b, v, j)
			}
		}
	}
	norms := b.Sqrt(Sum(b, b.Square(a), Axis(rowAxis), KeepDims())) // (..., 1, n)
	order := b.StopGradient(Argsort(b, b.Neg(norms), -1))           // descending
	s = Squeeze(b, TakeAlongAxis(b, norms, order, -1), rowAxis)
	if o.SingularValuesOnly {
		return nil, s, nil
	}
	if len(v.Shape()) < len(shape) { // n = 1: no rotation
		v = BroadcastTo(b, v, append(shape[:rowAxis].Clone(), n, n)...)
	}
	// A zero singular value's column of u is zero (any unit vector
	// orthogonal to the others would do; LAPACK picks one), not 0/0.
	nonzero := b.StopGradient(b.Greater(norms, scalar(b, 0)))
	u = TakeAlongAxis(b, maskedDiv(b, a, norms, nonzero), order, -1)
	vh = Swapaxes(b, TakeAlongAxis(b, v, order, -1), -1, -2)
	if !o.ReducedMatrices && m > n {
		// The complete u: u's columns, then an orthonormal basis of the
		// rest: the last columns of u's complete QR decomposition (its
		// Householder reflections fix the whole space, whatever u is).
		q, _ := Qr(b, u, QrComplete)
		u = b.Concat(len(shape)-1, u, sliceAxis(b, q, len(shape)-1, n, m-n))
	}
	return u, s, vh
}
