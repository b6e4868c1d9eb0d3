package ops

import "math"

// The nan* reductions skip NaN values, as NumPy's: NaN where a reduction
// has no value left (nansum gives 0 and nanprod 1 there).

// withoutNaN replaces x's NaNs by v.
func withoutNaN(b Builder, x Value, v float64) Value {
	return b.Where(Isnan(b, x), scalar(b, v), x)
}

// countValues counts the values that are not NaN over the chosen axes,
// keeping them.
func countValues(b Builder, x Value, opts []AxisOption) Value {
	return Sum(b, b.Equal(x, x), append(opts, KeepDims())...)
}

// orNaN is r where count > 0 and NaN where there was no value.
func orNaN(b Builder, r, count Value, opts []AxisOption, x Value) Value {
	if !reduceOptions(opts).keepDims {
		axes, _, ok := reduction(b, "nan", x, opts)
		if !ok {
			return b.Fail(nil, b.Err())
		}
		count = b.Reshape(count, dropAxes(x.Shape(), axes))
	}
	return b.Where(b.Greater(count, scalar(b, 0)), r, scalar(b, math.NaN()))
}

// Nansum is Sum with NaNs counted as 0.
func Nansum(b Builder, x Value, opts ...AxisOption) Value {
	if missing(b, "Nansum", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	return Sum(b, withoutNaN(b, x, 0), opts...)
}

// Nanprod is Prod with NaNs counted as 1.
func Nanprod(b Builder, x Value, opts ...AxisOption) Value {
	if missing(b, "Nanprod", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	return Prod(b, withoutNaN(b, x, 1), opts...)
}

// Nanmean is the mean of the values that are not NaN.
func Nanmean(b Builder, x Value, opts ...AxisOption) Value {
	if missing(b, "Nanmean", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	count := countValues(b, x, opts)
	s := Sum(b, withoutNaN(b, x, 0), append(opts, KeepDims())...)
	m := b.Div(s, b.Maximum(count, scalar(b, 1)))
	m = b.Where(b.Greater(count, scalar(b, 0)), m, scalar(b, math.NaN()))
	if reduceOptions(opts).keepDims {
		return m
	}
	axes, _, ok := reduction(b, "Nanmean", x, opts)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	return b.Reshape(m, dropAxes(x.Shape(), axes))
}

// Nanvar is the population variance of the values that are not NaN.
func Nanvar(b Builder, x Value, opts ...AxisOption) Value {
	if missing(b, "Nanvar", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	m := Nanmean(b, x, append(opts, KeepDims())...)
	return Nanmean(b, b.Square(b.Sub(x, m)), opts...)
}

// Nanstd is the population standard deviation of the values that are not
// NaN.
func Nanstd(b Builder, x Value, opts ...AxisOption) Value { return b.Sqrt(Nanvar(b, x, opts...)) }

// Nanmax is Max of the values that are not NaN.
func Nanmax(b Builder, x Value, opts ...AxisOption) Value {
	if missing(b, "Nanmax", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	return orNaN(b, Max(b, withoutNaN(b, x, math.Inf(-1)), opts...), countValues(b, x, opts), opts, x)
}

// Nanmin is Min of the values that are not NaN.
func Nanmin(b Builder, x Value, opts ...AxisOption) Value {
	if missing(b, "Nanmin", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	return orNaN(b, Min(b, withoutNaN(b, x, math.Inf(1)), opts...), countValues(b, x, opts), opts, x)
}

// Nanargmax is Argmax of the values that are not NaN.
func Nanargmax(b Builder, x Value, opts ...AxisOption) Value {
	if missing(b, "Nanargmax", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	return Argmax(b, withoutNaN(b, x, math.Inf(-1)), opts...)
}

// Nanargmin is Argmin of the values that are not NaN.
func Nanargmin(b Builder, x Value, opts ...AxisOption) Value {
	if missing(b, "Nanargmin", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	return Argmin(b, withoutNaN(b, x, math.Inf(1)), opts...)
}

// Nancumsum is Cumsum with NaNs counted as 0.
func Nancumsum(b Builder, x Value, opts ...AxisOption) Value {
	if missing(b, "Nancumsum", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	return Cumsum(b, withoutNaN(b, x, 0), opts...)
}

// Nancumprod is Cumprod with NaNs counted as 1.
func Nancumprod(b Builder, x Value, opts ...AxisOption) Value {
	if missing(b, "Nancumprod", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	return Cumprod(b, withoutNaN(b, x, 1), opts...)
}

// Nanquantile is Quantile of the values that are not NaN: each row's
// count decides where its quantile lies.
func Nanquantile(b Builder, x Value, q float64, opts ...AxisOption) Value {
	return quantileOf(b, "Nanquantile", x, q, opts, func(x Value, a int) Value {
		// NaNs sort last as +Inf; each row's count of values places q
		sorted := Sort(b, withoutNaN(b, x, math.Inf(1)), a)
		count := b.StopGradient(Sum(b, b.Equal(x, x), Axis(a), KeepDims()))
		last := b.Maximum(b.Sub(count, scalar(b, 1)), scalar(b, 0))
		pos := b.Mul(last, scalar(b, q))
		lo := b.Floor(pos)
		hi := b.Minimum(b.Add(lo, scalar(b, 1)), last)
		frac := b.Sub(pos, lo)
		vlo := TakeAlongAxis(b, sorted, lo, a)
		vhi := TakeAlongAxis(b, sorted, hi, a)
		v := b.Add(vlo, b.Mul(b.Sub(vhi, vlo), frac))
		return b.Where(b.Greater(count, scalar(b, 0)), v, scalar(b, math.NaN()))
	})
}

// Nanmedian is Nanquantile at 0.5.
func Nanmedian(b Builder, x Value, opts ...AxisOption) Value { return Nanquantile(b, x, 0.5, opts...) }

// Nanpercentile is Nanquantile with q in percent.
func Nanpercentile(b Builder, x Value, q float64, opts ...AxisOption) Value {
	if q < 0 || q > 100 {
		return failf(b, "Nanpercentile", nil, "q = %v must be in [0, 100]", q)
	}
	return Nanquantile(b, x, q/100, opts...)
}
