package ops

import "github.com/kerasgo/kerasgo/keras/backend"

// Diagonal is the diagonal at offset (above the main one when positive)
// of the planes of axes axis1 and axis2, which move to the end and become
// one axis, as NumPy's diagonal.
func Diagonal(b Builder, x Value, offset, axis1, axis2 int) Value {
	if missing(b, "Diagonal", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	if len(x.Shape()) < 2 {
		return failf(b, "Diagonal", x.Shape(), "the input %v needs at least two axes", x.Shape())
	}
	a1, ok1 := axisOf(b, "Diagonal", x, axis1)
	a2, ok2 := axisOf(b, "Diagonal", x, axis2)
	if !ok1 || !ok2 {
		return b.Fail(nil, b.Err())
	}
	if a1 == a2 {
		return failf(b, "Diagonal", x.Shape(), "axis1 and axis2 are the same axis %d", a1)
	}
	r := len(x.Shape())
	perm := []int{}
	for i := 0; i < r; i++ {
		if i != a1 && i != a2 {
			perm = append(perm, i)
		}
	}
	perm = append(perm, a1, a2)
	y := Transpose(b, x, perm...)
	s := y.Shape()
	n, m := s[r-2], s[r-1]
	var pos []int
	for i := 0; i < n; i++ {
		j := i + offset
		if j >= 0 && j < m {
			pos = append(pos, i*m+j)
		}
	}
	if len(pos) == 0 {
		return failf(b, "Diagonal", x.Shape(), "offset %d leaves no diagonal in a %d×%d plane", offset, n, m)
	}
	flat := append(s[:r-2:r-2], n*m)
	return takeAxis(b, b.Reshape(y, flat), r-2, pos)
}

// Diag builds a matrix with the 1-D x on its diagonal k, or takes the
// diagonal k of the 2-D x, as NumPy's diag.
func Diag(b Builder, x Value, k int) Value {
	if missing(b, "Diag", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	switch len(x.Shape()) {
	case 2:
		return Diagonal(b, x, k, 0, 1)
	case 1:
	default:
		return failf(b, "Diag", x.Shape(), "the input %v must be 1-D (to build a matrix) or 2-D (to take its diagonal)", x.Shape())
	}
	n := x.Shape()[0]
	size := n + abs(k)
	place := make([]float64, n*size*size)
	for i := 0; i < n; i++ {
		r, c := i, i+k
		if k < 0 {
			r, c = i-k, i
		}
		place[i*size*size+r*size+c] = 1
	}
	m := b.MatMul(b.Reshape(x, Shape{1, n}), b.Constant(place, Shape{n, size * size}))
	return b.Reshape(m, Shape{size, size})
}

// Diagflat is Diag of x flattened.
func Diagflat(b Builder, x Value, k int) Value { return Diag(b, Ravel(b, x), k) }

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// triangle keeps x's values on and below (lower) or on and above the
// diagonal k of its last two axes, zeroing the rest.
func triangle(b Builder, op string, x Value, k int, lower bool) Value {
	if missing(b, op, []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	if len(s) < 2 {
		return failf(b, op, s, "the input %v needs at least two axes", s)
	}
	n, m := s[len(s)-2], s[len(s)-1]
	mask := make([]float64, n*m)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			if (lower && j-i <= k) || (!lower && j-i >= k) {
				mask[i*m+j] = 1
			}
		}
	}
	return b.Where(b.Constant(mask, Shape{n, m}), x, scalar(b, 0))
}

// Tril zeros the values above diagonal k of the last two axes.
func Tril(b Builder, x Value, k int) Value { return triangle(b, "Tril", x, k, true) }

// Triu zeros the values below diagonal k of the last two axes.
func Triu(b Builder, x Value, k int) Value { return triangle(b, "Triu", x, k, false) }

// Slice takes the block of x starting at start with the given shape.
func Slice(b Builder, x Value, start []int, shape []int) Value {
	if missing(b, "Slice", []string{"inputs"}, x) {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	if len(start) != len(s) || len(shape) != len(s) {
		return failf(b, "Slice", Shape(shape), "start %v and shape %v must each have one entry per axis of the input %v", start, shape, s)
	}
	for i := range s {
		if start[i] < 0 || shape[i] < 0 || start[i]+shape[i] > s[i] {
			return failf(b, "Slice", Shape(shape), "the block at %v of shape %v does not fit in the input %v", start, shape, s)
		}
	}
	if Shape(shape).Equal(s) {
		return x
	}
	return b.Slice(x, append([]int(nil), start...), append([]int(nil), shape...))
}

// SliceUpdate is x with the block at start replaced by updates.
func SliceUpdate(b Builder, x Value, start []int, updates Value) Value {
	if missing(b, "SliceUpdate", []string{"inputs", "updates"}, x, updates) {
		return b.Fail(nil, b.Err())
	}
	s, u := x.Shape(), updates.Shape()
	if len(start) != len(s) || len(u) != len(s) {
		return failf(b, "SliceUpdate", s, "start %v and updates %v must each have one entry per axis of the input %v", start, u, s)
	}
	widths := make([][2]int, len(s))
	for i := range s {
		if start[i] < 0 || start[i]+u[i] > s[i] {
			return failf(b, "SliceUpdate", s, "updates of shape %v at %v do not fit in the input %v", u, start, s)
		}
		widths[i] = [2]int{start[i], s[i] - start[i] - u[i]}
	}
	placed := Pad(b, updates, widths, PadConstant, 0)
	mask := Pad(b, filled(b, u, 1), widths, PadConstant, 0)
	return b.Where(mask, placed, x)
}

// indicesAsFloat turns int32 indices into the float dtype, adding n to
// negative ones (counted from the end, as NumPy).
func indicesAsFloat(b Builder, idx Value, n int) Value {
	if idx.DType() == backend.Int32 {
		idx = b.Cast(idx)
	}
	idx = b.StopGradient(idx)
	return b.Where(b.Greater(scalar(b, 0), idx), b.Add(idx, scalar(b, float64(n))), idx)
}

// Take takes the values of x at indices along the Axis (with none, of x
// flattened), as NumPy's take: the result has x's shape with that axis
// replaced by indices' shape. Indices may be negative (from the end); one
// out of range fails the run. Differentiable in x.
func Take(b Builder, x, indices Value, opts ...AxisOption) Value {
	if missing(b, "Take", []string{"x", "indices"}, x, indices) {
		return b.Fail(nil, b.Err())
	}
	a, flat, ok := oneAxis(b, "Take", x, opts)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if flat {
		x, a = Ravel(b, x), 0
	}
	idx := indicesAsFloat(b, indices, x.Shape()[a])
	g := b.Gather(moveAxis(b, x, a, 0), idx) // indices' axes, then x's others
	k, r := len(indices.Shape()), len(x.Shape())
	// put indices' axes where axis a was
	perm := make([]int, 0, k+r-1)
	for i := 0; i < a; i++ {
		perm = append(perm, k+i)
	}
	for i := 0; i < k; i++ {
		perm = append(perm, i)
	}
	for i := a; i < r-1; i++ {
		perm = append(perm, k+i)
	}
	return Transpose(b, g, perm...)
}

// TakeAlongAxis picks values of x along axis at indices, which has x's
// rank and broadcasts with it on the other axes, as NumPy's
// take_along_axis. Differentiable in x.
func TakeAlongAxis(b Builder, x, indices Value, axis int) Value {
	if missing(b, "TakeAlongAxis", []string{"x", "indices"}, x, indices) {
		return b.Fail(nil, b.Err())
	}
	if len(indices.Shape()) != len(x.Shape()) {
		return failf(b, "TakeAlongAxis", indices.Shape(), "indices of shape %v must have the rank of x %v", indices.Shape(), x.Shape())
	}
	a, ok := axisOf(b, "TakeAlongAxis", x, axis)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	r := len(x.Shape())
	idx := indicesAsFloat(b, indices, x.Shape()[a])
	xs := moveAxis(b, x, a, r-1)   // (..., n)
	is := moveAxis(b, idx, a, r-1) // (..., k)
	lead, err := backend.BroadcastShapes(xs.Shape()[:r-1], is.Shape()[:r-1])
	if err != nil {
		return failf(b, "TakeAlongAxis", x.Shape(), "indices %v and x %v do not broadcast on the axes other than %d", indices.Shape(), x.Shape(), a)
	}
	xs = broadcastTo(b, xs, append(lead.Clone(), xs.Shape()[r-1]))
	is = broadcastTo(b, is, append(lead.Clone(), is.Shape()[r-1]))
	return moveAxis(b, takeLast(b, xs, is), r-1, a)
}

// takeLast is out[..., j] = x[..., idx[..., j]] for x (L..., n) and float
// indices idx (L..., k) of the same leading axes: one gather from x
// flattened, so the values not taken are never multiplied (an Inf among
// them does no harm) and the work is O(k), not O(k·n).
func takeLast(b Builder, x, idx Value) Value {
	s := x.Shape()
	r := len(s)
	n := s[r-1]
	rows := Shape(s[:r-1]).Size()
	offsets := make([]float64, rows)
	for i := range offsets {
		offsets[i] = float64(i * n)
	}
	at := append(Shape(s[:r-1]).Clone(), 1)
	var off Value
	if len(at) == 1 {
		off = scalar(b, 0)
	} else {
		off = b.Constant(offsets, at)
	}
	return b.Gather(b.Reshape(x, Shape{rows * n}), b.Add(idx, off))
}

// flatIndices turns indices (N, rank) of a tensor of shape s into flat
// positions (N).
func flatIndices(b Builder, indices Value, s Shape) Value {
	idx := indices
	if idx.DType() == backend.Int32 {
		idx = b.Cast(idx)
	}
	strides := make([]float64, len(s))
	acc := 1
	for i := len(s) - 1; i >= 0; i-- {
		strides[i] = float64(acc)
		acc *= s[i]
	}
	f := b.MatMul(b.StopGradient(idx), b.Constant(strides, Shape{len(s), 1}))
	return b.Reshape(f, Shape{idx.Shape()[0]})
}

func checkScatter(b Builder, op string, indices, values Value, s Shape) bool {
	is := indices.Shape()
	if len(is) != 2 || is[1] != len(s) {
		failf(b, op, s, "indices of shape %v: want (N, %d), one row of coordinates per value into the shape %v", is, len(s), s)
		return false
	}
	if vs := values.Shape(); len(vs) != 1 || vs[0] != is[0] {
		failf(b, op, s, "values of shape %v: want (%d), one per row of indices", vs, is[0])
		return false
	}
	return true
}

// Scatter is a tensor of shape s, zero except at indices (N, rank), where
// values (N) are added (repeated indices add up). Differentiable in
// values.
func Scatter(b Builder, indices, values Value, s ...int) Value {
	if missing(b, "Scatter", []string{"indices", "values"}, indices, values) {
		return b.Fail(nil, b.Err())
	}
	shape := Shape(append([]int(nil), s...))
	if !checkScatter(b, "Scatter", indices, values, shape) {
		return b.Fail(nil, b.Err())
	}
	n := indices.Shape()[0]
	hot := b.OneHot(flatIndices(b, indices, shape), shape.Size()) // (N, size)
	out := b.MatMul(b.Reshape(values, Shape{1, n}), hot)
	return b.Reshape(out, shape)
}

// ScatterUpdate is x with the values at indices (N, rank) replaced by
// updates (N). Differentiable in x and updates.
func ScatterUpdate(b Builder, x, indices, updates Value) Value {
	if missing(b, "ScatterUpdate", []string{"inputs", "indices", "updates"}, x, indices, updates) {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	if !checkScatter(b, "ScatterUpdate", indices, updates, s) {
		return b.Fail(nil, b.Err())
	}
	n := indices.Shape()[0]
	hot := b.OneHot(flatIndices(b, indices, s), s.Size())
	placed := b.Reshape(b.MatMul(b.Reshape(updates, Shape{1, n}), hot), s)
	covered := b.Reshape(b.MatMul(filled(b, Shape{1, n}, 1), hot), s)
	return b.Where(covered, placed, x)
}
