package ops

import "math"

// segment builds the one-hot membership (numSegments, n) of data's rows
// in segments, from segmentIDs (n), for the segment_* reductions.
func segment(b Builder, op string, data, segmentIDs Value, numSegments int) (Value, bool) {
	if missing(b, op, []string{"data", "segment_ids"}, data, segmentIDs) {
		return nil, false
	}
	ds, is := data.Shape(), segmentIDs.Shape()
	if len(is) != 1 || len(ds) == 0 || ds[0] != is[0] {
		failf(b, op, ds, "segment_ids of shape %v: want (%d), one segment per row of data %v", is, lastOr(ds), ds)
		return nil, false
	}
	if numSegments <= 0 {
		failf(b, op, ds, "num_segments must be given and positive, got %d (kerasgo's shapes are fixed when the computation is built)", numSegments)
		return nil, false
	}
	ids := segmentIDs
	if ids.DType() != b.DType() {
		ids = b.Cast(ids)
	}
	hot := b.OneHot(b.StopGradient(ids), numSegments) // (n, segments)
	return b.Transpose(hot, 1, 0), true
}

func lastOr(s Shape) int {
	if len(s) == 0 {
		return 0
	}
	return s[0]
}

// SegmentSum adds data's rows (along axis 0) by segment: out[s] is the
// sum of the rows whose segment id is s; numSegments is required.
func SegmentSum(b Builder, data, segmentIDs Value, numSegments int) Value {
	m, ok := segment(b, "SegmentSum", data, segmentIDs, numSegments)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	ds := data.Shape()
	flat := b.Reshape(data, Shape{ds[0], ds[1:].Size()})
	return b.Reshape(b.MatMul(m, flat), append(Shape{numSegments}, ds[1:]...))
}

// segmentFold reduces each segment's rows with f, rows outside it set to
// identity; an empty segment gets empty.
func segmentFold(b Builder, op string, data, segmentIDs Value, numSegments int, identity, empty float64, f func(x, y Value) Value) Value {
	m, ok := segment(b, op, data, segmentIDs, numSegments)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	ds := data.Shape()
	rest := ds[1:]
	ms := append(Shape{numSegments, ds[0]}, onesShape(len(rest))...)
	member := b.Reshape(m, ms)                                        // (segments, n, 1...)
	spread := b.Reshape(data, append(Shape{1}, ds...))                // (1, n, ...)
	full := broadcastTo(b, spread, append(Shape{numSegments}, ds...)) // (segments, n, ...)
	masked := b.Where(member, full, scalar(b, identity))
	r := fold(b, op, masked, []AxisOption{Axis(1)}, f)
	any := b.Reshape(Max(b, m, Axis(1)), append(Shape{numSegments}, onesShape(len(rest))...))
	return b.Where(any, r, scalar(b, empty))
}

func onesShape(n int) Shape {
	s := make(Shape, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// SegmentMax is the largest row value by segment (-Inf when empty).
func SegmentMax(b Builder, data, segmentIDs Value, numSegments int) Value {
	return segmentFold(b, "SegmentMax", data, segmentIDs, numSegments, math.Inf(-1), math.Inf(-1), b.Maximum)
}

// SegmentMin is the smallest row value by segment (+Inf when empty).
func SegmentMin(b Builder, data, segmentIDs Value, numSegments int) Value {
	return segmentFold(b, "SegmentMin", data, segmentIDs, numSegments, math.Inf(1), math.Inf(1), b.Minimum)
}

// SegmentProd is the product of the rows by segment (1 when empty).
func SegmentProd(b Builder, data, segmentIDs Value, numSegments int) Value {
	return segmentFold(b, "SegmentProd", data, segmentIDs, numSegments, 1, 1, b.Mul)
}

// Isin is 1 where a value of x is among the values of test.
func Isin(b Builder, x, test Value) Value {
	if missing(b, "Isin", []string{"x1", "x2"}, x, test) {
		return b.Fail(nil, b.Err())
	}
	n := test.Shape().Size()
	xs := b.Reshape(b.StopGradient(x), append(x.Shape().Clone(), 1))
	ts := b.Reshape(b.StopGradient(test), Shape{n})
	eq := b.Sub(scalar(b, 1), b.Add(b.Greater(xs, ts), b.Greater(ts, xs))) // equal, NaN aside
	eq = b.Mul(eq, b.Reshape(b.Equal(xs, xs), append(x.Shape().Clone(), 1)))
	return Max(b, eq, Axis(len(x.Shape())))
}

// CorrelateMode is how Correlate aligns: Keras's mode.
type CorrelateMode string

// The correlate modes.
const (
	CorrelateValid CorrelateMode = "valid"
	CorrelateSame  CorrelateMode = "same"
	CorrelateFull  CorrelateMode = "full"
)

// Correlate is the cross-correlation of the 1-D x and y, as NumPy's
// correlate: out[k] = Σ x[n+k]·y[n].
func Correlate(b Builder, x, y Value, mode CorrelateMode) Value {
	if missing(b, "Correlate", []string{"x1", "x2"}, x, y) {
		return b.Fail(nil, b.Err())
	}
	if len(x.Shape()) != 1 || len(y.Shape()) != 1 {
		return failf(b, "Correlate", x.Shape(), "x1 %v and x2 %v must be 1-D", x.Shape(), y.Shape())
	}
	n, m := x.Shape()[0], y.Shape()[0]
	if m > n { // NumPy swaps and reverses
		return Flip(b, Correlate(b, y, x, mode), 0)
	}
	var padL, padR int
	switch mode {
	case CorrelateValid, "":
	case CorrelateSame:
		padL = m / 2
		padR = m - 1 - padL
	case CorrelateFull:
		padL, padR = m-1, m-1
	default:
		return failf(b, "Correlate", x.Shape(), "unknown mode %q: use valid, same or full", mode)
	}
	xp := Pad(b, x, [][2]int{{padL, padR}}, PadConstant, 0)
	out := xp.Shape()[0] - m + 1
	// rows of windows (out, m) times y
	idx := make([]int, 0, out*m)
	for k := 0; k < out; k++ {
		for j := 0; j < m; j++ {
			idx = append(idx, k+j)
		}
	}
	win := b.Reshape(takeAxis(b, xp, 0, idx), Shape{out, m})
	return b.Reshape(b.MatMul(win, b.Reshape(y, Shape{m, 1})), Shape{out})
}

// Cdist is the Euclidean distance between each row of x (..., n, d) and
// each row of y (..., m, d): (..., n, m).
func Cdist(b Builder, x, y Value) Value {
	if missing(b, "Cdist", []string{"x", "y"}, x, y) {
		return b.Fail(nil, b.Err())
	}
	xs, ys := x.Shape(), y.Shape()
	if len(xs) < 2 || len(ys) < 2 || xs[len(xs)-1] != ys[len(ys)-1] {
		return failf(b, "Cdist", xs, "x %v and y %v must be (..., n, d) and (..., m, d) with one d", xs, ys)
	}
	d := b.Sub(ExpandDims(b, x, -2), ExpandDims(b, y, -3)) // (..., n, m, d)
	return b.Sqrt(Sum(b, b.Square(d), Axis(-1)))
}

// Corrcoef is the Pearson correlation matrix of the rows of x (variables
// in rows, observations in columns).
func Corrcoef(b Builder, x Value) Value {
	if missing(b, "Corrcoef", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	if len(x.Shape()) == 1 {
		x = b.Reshape(x, Shape{1, x.Shape()[0]})
	}
	if len(x.Shape()) != 2 {
		return failf(b, "Corrcoef", x.Shape(), "x must be 1-D or 2-D, got %v", x.Shape())
	}
	c := b.Sub(x, Mean(b, x, Axis(1), KeepDims()))
	cov := b.MatMul(c, b.Transpose(c, 1, 0))
	d := b.Sqrt(Diagonal(b, cov, 0, 0, 1))
	n := d.Shape()[0]
	return b.Div(b.Div(cov, b.Reshape(d, Shape{n, 1})), b.Reshape(d, Shape{1, n}))
}

// Histogram counts x's values in bins equal bins over [lo, hi] (the last
// bin includes hi), returning the counts and the bins+1 edges.
func Histogram(b Builder, x Value, bins int, lo, hi float64) (counts, edges Value) {
	if missing(b, "Histogram", []string{"x"}, x) {
		bad := b.Fail(nil, b.Err())
		return bad, bad
	}
	if bins <= 0 || !(hi > lo) {
		bad := failf(b, "Histogram", x.Shape(), "bins %d over [%v, %v]: bins must be positive and the range not empty", bins, lo, hi)
		return bad, bad
	}
	e := linspace(lo, hi, bins+1, true)
	flat := b.Reshape(b.StopGradient(x), Shape{x.Shape().Size(), 1})
	low := b.Constant(e[:bins], Shape{1, bins})
	high := b.Constant(e[1:], Shape{1, bins})
	in := b.Sub(scalar(b, 1), b.Greater(low, flat)) // x >= low
	below := b.Greater(high, flat)                  // x < high
	last := make([]float64, bins)
	last[bins-1] = 1
	atEnd := b.Mul(b.Equal(flat, b.Add(filled(b, flat.Shape(), 0), scalar(b, hi))), b.Constant(last, Shape{1, bins}))
	member := b.Mul(in, b.Maximum(below, atEnd))
	return b.Sum(member, 0), b.Constant(e, Shape{bins + 1})
}

// Bincount counts each whole value of the 1-D x in [0, minlength), with
// weights (x's shape) summed instead of counted when given. kerasgo needs
// minlength, the output's length, as its shapes are fixed when the
// computation is built; larger values are not counted.
func Bincount(b Builder, x, weights Value, minlength int) Value {
	if missing(b, "Bincount", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	if minlength <= 0 {
		return failf(b, "Bincount", x.Shape(), "minlength must be positive: it is the output's length, fixed when the computation is built")
	}
	ids := x
	if ids.DType() != b.DType() {
		ids = b.Cast(ids)
	}
	hot := b.OneHot(b.StopGradient(ids), minlength) // (..., minlength)
	if weights != nil {
		hot = b.Mul(hot, b.Reshape(weights, append(weights.Shape().Clone(), 1)))
	}
	r := len(x.Shape())
	axes := make([]int, r)
	for i := range axes {
		axes[i] = i
	}
	if len(axes) == 0 {
		return hot
	}
	return b.Sum(hot, axes...)
}

// I0 is the modified Bessel function of the first kind, order 0, by its
// power series (30 terms: exact in float64 for |x| up to about 20).
func I0(b Builder, x Value) Value {
	q := b.Mul(b.Square(x), scalar(b, 0.25)) // (x/2)²
	term := filled(b, x.Shape(), 1)
	sum := term
	for k := 1; k <= 30; k++ {
		term = b.Div(b.Mul(term, q), scalar(b, float64(k*k)))
		sum = b.Add(sum, term)
	}
	return sum
}

// UnravelIndex turns flat indices into coordinates in a tensor of shape
// s: one tensor per axis, each of indices' shape.
func UnravelIndex(b Builder, indices Value, s ...int) []Value {
	if missing(b, "UnravelIndex", []string{"indices"}, indices) {
		return failedList(b, len(s))
	}
	idx := indices
	if idx.DType() != b.DType() {
		idx = b.Cast(idx)
	}
	idx = b.StopGradient(idx)
	out := make([]Value, len(s))
	for i := len(s) - 1; i >= 0; i-- {
		d := scalar(b, float64(s[i]))
		q := b.Floor(b.Div(idx, d))
		out[i] = b.Sub(idx, b.Mul(q, d))
		idx = q
	}
	return out
}
