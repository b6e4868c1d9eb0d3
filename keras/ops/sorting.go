package ops

// Cumsum is the running sum along the Axis (with none, of x flattened):
// log₂(n) shifted adds, differentiable.
func Cumsum(b Builder, x Value, opts ...AxisOption) Value {
	return scan(b, "Cumsum", x, opts, 0, b.Add)
}

// Cumprod is the running product along the Axis (with none, of x
// flattened).
func Cumprod(b Builder, x Value, opts ...AxisOption) Value {
	return scan(b, "Cumprod", x, opts, 1, b.Mul)
}

// scan is an inclusive prefix scan (Hillis and Steele): at each round
// every value combines with the one shift places before it (the identity
// before the start), shift doubling.
func scan(b Builder, op string, x Value, opts []AxisOption, identity float64, f func(x, y Value) Value) Value {
	if missing(b, op, []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	a, flat, ok := oneAxis(b, op, x, opts)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if flat {
		x, a = Ravel(b, x), 0
	}
	n := x.Shape()[a]
	for shift := 1; shift < n; shift *= 2 {
		pad := x.Shape().Clone()
		pad[a] = shift
		shifted := b.Concat(a, filled(b, pad, identity), sliceAxis(b, x, a, 0, n-shift))
		x = f(x, shifted)
	}
	return x
}

// Diff is the n-th discrete difference along axis, x[i+1] - x[i].
func Diff(b Builder, x Value, n, axis int) Value {
	if missing(b, "Diff", []string{"a"}, x) {
		return b.Fail(nil, b.Err())
	}
	a, ok := axisOf(b, "Diff", x, axis)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if n < 0 || n >= x.Shape()[a] {
		return failf(b, "Diff", x.Shape(), "n = %d differences along axis %d of size %d: n must be in [0, %d)", n, a, x.Shape()[a], x.Shape()[a])
	}
	for i := 0; i < n; i++ {
		m := x.Shape()[a]
		x = b.Sub(sliceAxis(b, x, a, 1, m-1), sliceAxis(b, x, a, 0, m-1))
	}
	return x
}

// permutation returns the one-hot matrix P (rows, n, n) that sorts each
// row of x (rows, n) ascending, stably: P[r, i, k] = 1 when x[r, i] goes
// to place k. It ranks each value by how many values are smaller, or
// equal and earlier: n² comparisons per row, no gradient.
func permutation(b Builder, x Value) Value {
	s := x.Shape()
	rows, n := s[0], s[1]
	xs := b.StopGradient(x)
	xi := b.Reshape(xs, Shape{rows, n, 1})
	xj := b.Reshape(xs, Shape{rows, 1, n})
	less := b.Greater(xi, xj) // x[j] < x[i]
	equal := b.Sub(scalar(b, 1), b.Add(less, b.Greater(xj, xi)))
	earlier := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			earlier[i*n+j] = 1
		}
	}
	ties := b.Mul(equal, b.Constant(earlier, Shape{n, n}))
	rank := b.Sum(b.Add(less, ties), 2) // (rows, n)
	return b.OneHot(rank, n)
}

// sortRows sorts each row of x, moved so that axis is last and flattened
// to (rows, n), returning the sorted values and the indices, both in x's
// layout.
func sortRows(b Builder, op string, x Value, axis int, wantValues bool) (values, indices Value) {
	if missing(b, op, []string{"x"}, x) {
		bad := b.Fail(nil, b.Err())
		return bad, bad
	}
	if len(x.Shape()) == 0 {
		bad := failf(b, op, x.Shape(), "a scalar has nothing to sort")
		return bad, bad
	}
	a, ok := axisOf(b, op, x, axis)
	if !ok {
		bad := b.Fail(nil, b.Err())
		return bad, bad
	}
	r := len(x.Shape())
	moved := moveAxis(b, x, a, r-1)
	ms := moved.Shape()
	n := ms[r-1]
	rows := ms.Size() / n
	flat := b.Reshape(moved, Shape{rows, n})
	p := permutation(b, flat) // (rows, n, n)
	back := func(v Value) Value { return moveAxis(b, b.Reshape(v, ms), r-1, a) }
	iota := make([]float64, n)
	for i := range iota {
		iota[i] = float64(i)
	}
	idx := b.Reshape(b.BatchMatMul(broadcastTo(b, b.Constant(iota, Shape{1, 1, n}), Shape{rows, 1, n}), p), Shape{rows, n})
	indices = back(idx)
	if wantValues {
		values = back(takeLast(b, flat, idx))
	}
	return values, indices
}

// Sort sorts x along axis, ascending. Its gradient flows to the values
// moved; kerasgo sorts by comparing every pair (n² work per row), which
// suits the short axes layers sort. NaNs have no defined place (NumPy
// puts them last).
func Sort(b Builder, x Value, axis int) Value {
	v, _ := sortRows(b, "Sort", x, axis, true)
	return v
}

// Argsort is the indices that sort x along axis, ascending and stable,
// as whole numbers in the float dtype.
func Argsort(b Builder, x Value, axis int) Value {
	_, i := sortRows(b, "Argsort", x, axis, false)
	return i
}

// TopK returns the k largest values along the last axis, largest first,
// and their indices (the first on ties). Differentiable in the values.
func TopK(b Builder, x Value, k int) (values, indices Value) {
	if missing(b, "TopK", []string{"x"}, x) {
		bad := b.Fail(nil, b.Err())
		return bad, bad
	}
	s := x.Shape()
	if len(s) == 0 || k <= 0 || k > s[len(s)-1] {
		bad := failf(b, "TopK", s, "k = %d for an input of shape %v: k must be in [1, %d]", k, s, lastDim(s))
		return bad, bad
	}
	v, i := sortRows(b, "TopK", b.Neg(x), -1, true)
	last := len(s) - 1
	return sliceAxis(b, b.Neg(v), last, 0, k), sliceAxis(b, i, last, 0, k)
}

func lastDim(s Shape) int {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1]
}

// InTopK is 1 where the target class's prediction is among the k largest
// of its row (ties with the k-th count as in): targets (batch) of class
// indices, predictions (batch, classes).
func InTopK(b Builder, targets, predictions Value, k int) Value {
	if missing(b, "InTopK", []string{"targets", "predictions"}, targets, predictions) {
		return b.Fail(nil, b.Err())
	}
	ps, ts := predictions.Shape(), targets.Shape()
	if len(ps) != 2 || len(ts) != 1 || ts[0] != ps[0] {
		return failf(b, "InTopK", ts, "targets %v and predictions %v: want (batch) and (batch, classes)", ts, ps)
	}
	if k <= 0 {
		return failf(b, "InTopK", ts, "k must be positive, got %d", k)
	}
	p := b.StopGradient(predictions)
	t := targets
	if t.DType() != p.DType() {
		t = b.Cast(t)
	}
	own := b.TakeAlongLastAxis(p, t) // (batch)
	above := b.Sum(b.Greater(p, b.Reshape(own, Shape{ps[0], 1})), 1)
	return b.Greater(scalar(b, float64(k)), above)
}

// Median is the median along the Axis (with none, of x flattened): the
// mean of the two middle values for an even count.
func Median(b Builder, x Value, opts ...AxisOption) Value {
	return Quantile(b, x, 0.5, opts...)
}

// Quantile is the q-th quantile (q in [0, 1]) along the Axis, with
// linear interpolation between the two nearest values (NumPy's default
// method); KeepDims keeps the axis.
func Quantile(b Builder, x Value, q float64, opts ...AxisOption) Value {
	return quantileOf(b, "Quantile", x, q, opts, func(x Value, a int) Value {
		sorted := Sort(b, x, a)
		n := x.Shape()[a]
		pos := q * float64(n-1)
		lo := int(pos)
		frac := pos - float64(lo)
		v := sliceAxis(b, sorted, a, lo, 1)
		if frac > 0 && lo+1 < n {
			hi := sliceAxis(b, sorted, a, lo+1, 1)
			v = b.Add(v, b.Mul(b.Sub(hi, v), scalar(b, frac)))
		}
		return v
	})
}

// quantileOf checks q and the axis options, flattens x when no Axis is
// given, calls at for the quantile along axis a (kept with size 1), and
// shapes the result as the options ask.
func quantileOf(b Builder, op string, x Value, q float64, opts []AxisOption, at func(x Value, a int) Value) Value {
	if missing(b, op, []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	if q < 0 || q > 1 {
		return failf(b, op, x.Shape(), "q = %v must be in [0, 1]", q)
	}
	a, flat, ok := oneAxis(b, op, x, opts)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	in := x.Shape()
	if flat {
		x, a = Ravel(b, x), 0
	}
	v := at(x, a)
	switch keep := reduceOptions(opts).keepDims; {
	case keep && flat:
		s := make(Shape, len(in))
		for i := range s {
			s[i] = 1
		}
		return b.Reshape(v, s)
	case keep:
		return v
	default:
		return b.Reshape(v, dropAxes(v.Shape(), []int{a}))
	}
}

// Percentile is Quantile with q in percent.
func Percentile(b Builder, x Value, q float64, opts ...AxisOption) Value {
	if q < 0 || q > 100 {
		return failf(b, "Percentile", nil, "q = %v must be in [0, 100]", q)
	}
	return Quantile(b, x, q/100, opts...)
}

// Digitize is, for each value of x, the index of the bin it falls in:
// the number of (increasing) bins at or below it.
func Digitize(b Builder, x, bins Value) Value {
	if missing(b, "Digitize", []string{"x", "bins"}, x, bins) {
		return b.Fail(nil, b.Err())
	}
	if len(bins.Shape()) != 1 {
		return failf(b, "Digitize", x.Shape(), "bins must be 1-D, got %v", bins.Shape())
	}
	n := bins.Shape()[0]
	xs := b.Reshape(b.StopGradient(x), append(x.Shape().Clone(), 1))
	below := b.Sub(scalar(b, 1), b.Greater(b.StopGradient(bins), xs)) // bins[j] <= x
	return b.Sum(b.Reshape(below, append(x.Shape().Clone(), n)), len(x.Shape()))
}

// Searchsorted is, for each of values, where it would go in the 1-D
// increasing sortedSequence to keep it sorted: before equal values
// (left) or after them (right).
func Searchsorted(b Builder, sortedSequence, values Value, right bool) Value {
	if missing(b, "Searchsorted", []string{"sorted_sequence", "values"}, sortedSequence, values) {
		return b.Fail(nil, b.Err())
	}
	if len(sortedSequence.Shape()) != 1 {
		return failf(b, "Searchsorted", values.Shape(), "sorted_sequence must be 1-D, got %v", sortedSequence.Shape())
	}
	vs := b.Reshape(b.StopGradient(values), append(values.Shape().Clone(), 1))
	seq := b.StopGradient(sortedSequence)
	var before Value
	if right { // seq <= v
		before = b.Sub(scalar(b, 1), b.Greater(seq, vs))
	} else { // seq < v
		before = b.Greater(vs, seq)
	}
	return b.Sum(before, len(values.Shape()))
}

// Trapezoid integrates y along axis by the trapezoidal rule, with sample
// points x (1-D, along axis) or, x nil, the spacing dx.
func Trapezoid(b Builder, y, x Value, dx float64, axis int) Value {
	if missing(b, "Trapezoid", []string{"y"}, y) {
		return b.Fail(nil, b.Err())
	}
	a, ok := axisOf(b, "Trapezoid", y, axis)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	n := y.Shape()[a]
	if n < 2 {
		return b.Mul(Sum(b, y, Axis(a)), scalar(b, 0))
	}
	mid := b.Mul(b.Add(sliceAxis(b, y, a, 1, n-1), sliceAxis(b, y, a, 0, n-1)), scalar(b, 0.5))
	if x == nil {
		return b.Mul(Sum(b, mid, Axis(a)), scalar(b, dx))
	}
	if len(x.Shape()) != 1 || x.Shape()[0] != n {
		return failf(b, "Trapezoid", y.Shape(), "x of shape %v: want (%d), one point per value along axis %d", x.Shape(), n, a)
	}
	d := Diff(b, x, 1, 0)
	s := make(Shape, len(y.Shape()))
	for i := range s {
		s[i] = 1
	}
	s[a] = n - 1
	return Sum(b, b.Mul(mid, b.Reshape(d, s)), Axis(a))
}

// Argpartition is the indices that partition x along axis around its
// kth smallest value, Keras's ops.argpartition, as whole numbers in the
// float dtype: the kth+1 smallest first, in ascending order (the kth
// smallest at position kth), then the others in index order, as Keras's
// JAX backend orders them (jnp.argpartition, by two top-k passes).
func Argpartition(b Builder, x Value, kth, axis int) Value {
	if missing(b, "Argpartition", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	a, ok := axisOf(b, "Argpartition", x, axis)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	n := s[a]
	if kth < 0 {
		kth += n
	}
	if kth < 0 || kth >= n {
		return failf(b, "Argpartition", s, "kth %d is outside axis %d of length %d", kth, axis, n)
	}
	last := len(s) - 1
	rows := moveAxis(b, x, a, last)
	_, bottom := TopK(b, b.Neg(rows), kth+1)
	out := bottom
	if rest := n - kth - 1; rest > 0 {
		// 1 at the indices not taken, 0 at those taken: the top-k of that
		// is the rest in index order.
		taken := Sum(b, OneHot(b, bottom, n), Axis(last))
		_, top := TopK(b, b.Sub(scalar(b, 1), taken), rest)
		out = b.Concat(last, bottom, top)
	}
	return moveAxis(b, b.StopGradient(out), last, a)
}
