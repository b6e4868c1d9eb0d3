package ops

// jacobiSweeps is how many times the Jacobi methods (Eigh, Svd) rotate
// every pair of rows and columns: each sweep squares the off-diagonal
// mass once it is small, so ten reach float64's precision for the small
// matrices these ops are for with room to spare.
const jacobiSweeps = 10

// Eigh is the eigendecomposition of the symmetric matrices x (..., n, n):
// the eigenvalues (..., n), ascending, and the eigenvectors (..., n, n),
// one per column, Keras's ops.linalg.eigh. It reads (x + xᵀ)/2, as
// Keras's backends do (JAX symmetrizes its input), so its gradient is
// symmetric.
//
// It is the cyclic Jacobi method, unrolled for the matrix's size: each
// pair (p, q) is rotated by the angle that zeroes its off-diagonal entry,
// ½·atan2(2·a_pq, a_qq - a_pp), ten sweeps over all pairs. An
// eigenvector's sign is not fixed by the problem: Keras's backends (each
// LAPACK routine) pick their own, and so does this one; compare
// eigenvectors up to sign. Differentiable where the eigenvalues are
// distinct, as JAX's eigh is.
func Eigh(b Builder, x Value) (eigenvalues, eigenvectors Value) {
	n, ok := square(b, "Eigh", x)
	if !ok {
		return b.Fail(nil, b.Err()), b.Fail(nil, b.Err())
	}
	a := b.Mul(b.Add(x, Swapaxes(b, x, -1, -2)), scalar(b, 0.5))
	v := Eye(b, n, n, 0)
	for range jacobiSweeps {
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				app, aqq, apq := matrixEntry(b, a, p, p), matrixEntry(b, a, q, q), matrixEntry(b, a, p, q)
				theta := b.Mul(Arctan2(b, b.Mul(apq, scalar(b, 2)), b.Sub(aqq, app)), scalar(b, 0.5))
				j := rotation(b, n, p, q, b.Cos(theta), b.Sin(theta))
				a = Matmul(b, Matmul(b, Swapaxes(b, j, -1, -2), a), j)
				v = Matmul(b, v, j)
			}
		}
	}
	values := Diagonal(b, a, 0, -2, -1) // (..., n)
	order := b.StopGradient(Argsort(b, values, -1))
	values = TakeAlongAxis(b, values, order, -1)
	if len(v.Shape()) < len(x.Shape()) { // n = 1: no rotation
		v = BroadcastTo(b, v, x.Shape()...)
	}
	vectors := TakeAlongAxis(b, v, ExpandDims(b, order, -2), -1)
	return values, vectors
}

// matrixEntry is x[..., i, j], kept (..., 1, 1).
func matrixEntry(b Builder, x Value, i, j int) Value {
	s := x.Shape()
	return sliceAxis(b, sliceAxis(b, x, len(s)-2, i, 1), len(s)-1, j, 1)
}

// rotation is the n×n Givens rotation in the plane (p, q) with cosine c
// and sine s (each (..., 1, 1)): the identity but for J[p][p] = J[q][q] =
// c, J[p][q] = s, J[q][p] = -s.
func rotation(b Builder, n, p, q int, c, s Value) Value {
	rest, diag, plus, minus := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	for i := range n {
		if i != p && i != q {
			rest[i*n+i] = 1
		}
	}
	diag[p*n+p], diag[q*n+q] = 1, 1
	plus[p*n+q], minus[q*n+p] = 1, 1
	m := func(d []float64) Value { return b.Constant(d, Shape{n, n}) }
	return b.Add(b.Add(m(rest), b.Mul(c, m(diag))), b.Mul(s, b.Sub(m(plus), m(minus))))
}
