package ops

// Comparisons and logical ops return 1 for true and 0 for false in the
// computation's float dtype (Keras returns bools), and have no gradient.

// Equal is 1 where x == y, broadcasting.
func Equal(b Builder, x, y Value) Value {
	s, bad := broadcastShape(b, "Equal", x, y)
	if bad != nil {
		return bad
	}
	return b.Equal(broadcastTo(b, b.StopGradient(x), s), broadcastTo(b, b.StopGradient(y), s))
}

// NotEqual is 1 where x != y (and where either is NaN).
func NotEqual(b Builder, x, y Value) Value { return b.Sub(scalar(b, 1), Equal(b, x, y)) }

// Greater is 1 where x > y.
func Greater(b Builder, x, y Value) Value { return b.Greater(x, y) }

// Less is 1 where x < y.
func Less(b Builder, x, y Value) Value { return b.Greater(y, x) }

// GreaterEqual is 1 where x >= y (0 where either is NaN).
func GreaterEqual(b Builder, x, y Value) Value { return b.Add(b.Greater(x, y), Equal(b, x, y)) }

// LessEqual is 1 where x <= y (0 where either is NaN).
func LessEqual(b Builder, x, y Value) Value { return b.Add(b.Greater(y, x), Equal(b, x, y)) }

// LogicalNot is 1 where x is 0.
func LogicalNot(b Builder, x Value) Value { return b.Sub(scalar(b, 1), notZero(b, x)) }

// LogicalAnd is 1 where both x and y are not 0.
func LogicalAnd(b Builder, x, y Value) Value { return b.Mul(notZero(b, x), notZero(b, y)) }

// LogicalOr is 1 where x or y is not 0.
func LogicalOr(b Builder, x, y Value) Value { return b.Maximum(notZero(b, x), notZero(b, y)) }

// LogicalXor is 1 where exactly one of x and y is not 0.
func LogicalXor(b Builder, x, y Value) Value {
	return b.Abs(b.Sub(notZero(b, x), notZero(b, y)))
}

// Where is x where cond is not 0 and y elsewhere, the three broadcast
// together; differentiable in x and y. (Keras's one-argument form, the
// indices of nonzero values, has a shape that depends on the data, which
// a compiled kerasgo step cannot have: see Nonzero.)
func Where(b Builder, cond, x, y Value) Value {
	if missing(b, "Where", []string{"condition", "x1", "x2"}, cond, x, y) {
		return b.Fail(nil, b.Err())
	}
	return b.Where(b.StopGradient(cond), x, y)
}

// Select is, elementwise, the choice of the first condition that holds,
// or def where none does: NumPy's select.
func Select(b Builder, conds, choices []Value, def Value) Value {
	if len(conds) != len(choices) {
		return failf(b, "Select", nil, "%d conditions but %d choices: give one choice per condition", len(conds), len(choices))
	}
	out := def
	for i := len(conds) - 1; i >= 0; i-- {
		out = Where(b, conds[i], choices[i], out)
	}
	return out
}

// Isclose is 1 where |x - y| <= atol + rtol·|y| (NumPy's defaults are
// rtol 1e-5, atol 1e-8); with equalNaN, two NaNs count as close.
func Isclose(b Builder, x, y Value, rtol, atol float64, equalNaN bool) Value {
	x, y = b.StopGradient(x), b.StopGradient(y)
	tol := b.Add(scalar(b, atol), b.Mul(scalar(b, rtol), b.Abs(y)))
	diff := b.Abs(b.Sub(x, y))
	close := b.Sub(scalar(b, 1), b.Greater(diff, tol)) // NaN diff: Greater is 0
	close = b.Mul(close, Equal(b, diff, diff))         // NaN is never close
	close = b.Maximum(close, Equal(b, x, y))           // equal infinities
	if equalNaN {
		close = b.Maximum(close, b.Mul(Isnan(b, x), Isnan(b, y)))
	}
	return close
}

// Allclose is 1 if Isclose holds everywhere, as a scalar.
func Allclose(b Builder, x, y Value, rtol, atol float64, equalNaN bool) Value {
	return All(b, Isclose(b, x, y, rtol, atol, equalNaN))
}
