package ops

import (
	"strings"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Matmul is NumPy's matmul: the product of the last two axes, batch axes
// broadcast; a 1-D operand is a row (left) or column (right) vector whose
// axis is dropped from the result.
func Matmul(b Builder, x, y Value) Value {
	if missing(b, "Matmul", []string{"x1", "x2"}, x, y) {
		return b.Fail(nil, b.Err())
	}
	xs, ys := x.Shape(), y.Shape()
	origX, origY := xs, ys
	if len(xs) == 0 || len(ys) == 0 {
		return failf(b, "Matmul", xs, "operands of shapes %v and %v: matmul takes no scalars (use Multiply)", xs, ys)
	}
	dropRow, dropCol := len(xs) == 1, len(ys) == 1
	if dropRow {
		x = b.Reshape(x, Shape{1, xs[0]})
	}
	if dropCol {
		y = b.Reshape(y, Shape{ys[0], 1})
	}
	xs, ys = x.Shape(), y.Shape()
	m, k := xs[len(xs)-2], xs[len(xs)-1]
	k2, n := ys[len(ys)-2], ys[len(ys)-1]
	if k != k2 {
		return failf(b, "Matmul", xs, "the inner dimensions of x1 %v and x2 %v differ (%d and %d)", origX, origY, k, k2)
	}
	batch, err := backend.BroadcastShapes(xs[:len(xs)-2], ys[:len(ys)-2])
	if err != nil {
		return failf(b, "Matmul", xs, "the batch axes of %v and %v do not broadcast together", xs, ys)
	}
	var out Value
	if len(batch) == 0 {
		out = b.MatMul(x, y)
	} else {
		x = broadcastTo(b, x, append(batch.Clone(), m, k))
		y = broadcastTo(b, y, append(batch.Clone(), k, n))
		out = b.BatchMatMul(x, y)
	}
	s := out.Shape().Clone()
	switch {
	case dropRow && dropCol:
		return b.Reshape(out, s[:len(s)-2])
	case dropRow:
		return b.Reshape(out, append(s[:len(s)-2], n))
	case dropCol:
		return b.Reshape(out, s[:len(s)-1])
	}
	return out
}

// Dot is NumPy's dot: Multiply for a scalar operand, the inner product
// for two vectors, Matmul for matrices, and for N-D x the sum over x's
// last axis and y's second to last.
func Dot(b Builder, x, y Value) Value {
	if missing(b, "Dot", []string{"x1", "x2"}, x, y) {
		return b.Fail(nil, b.Err())
	}
	xs, ys := x.Shape(), y.Shape()
	switch {
	case len(xs) == 0 || len(ys) == 0:
		return b.Mul(x, y)
	case len(ys) <= 2:
		return Matmul(b, x, y)
	}
	return Tensordot(b, x, y, []int{len(xs) - 1}, []int{len(ys) - 2})
}

// Tensordot sums the products of x and y over xAxes and yAxes (paired),
// the result having x's other axes then y's.
func Tensordot(b Builder, x, y Value, xAxes, yAxes []int) Value {
	if missing(b, "Tensordot", []string{"x1", "x2"}, x, y) {
		return b.Fail(nil, b.Err())
	}
	if len(xAxes) != len(yAxes) {
		return failf(b, "Tensordot", x.Shape(), "%d axes of x1 but %d of x2: they pair up", len(xAxes), len(yAxes))
	}
	xa, ok1 := axesOf(b, "Tensordot", x, nonNil(xAxes))
	ya, ok2 := axesOf(b, "Tensordot", y, nonNil(yAxes))
	if !ok1 || !ok2 {
		return b.Fail(nil, b.Err())
	}
	xs, ys := x.Shape(), y.Shape()
	k := 1
	for i := range xa {
		if xs[xa[i]] != ys[ya[i]] {
			return failf(b, "Tensordot", xs, "axis %d of x1 %v has size %d but axis %d of x2 %v has %d", xa[i], xs, xs[xa[i]], ya[i], ys, ys[ya[i]])
		}
		k *= xs[xa[i]]
	}
	var xFree, yFree []int
	var outShape Shape
	for i := range xs {
		if !contains(xa, i) {
			xFree = append(xFree, i)
			outShape = append(outShape, xs[i])
		}
	}
	for i := range ys {
		if !contains(ya, i) {
			yFree = append(yFree, i)
			outShape = append(outShape, ys[i])
		}
	}
	m, n := 1, 1
	for _, i := range xFree {
		m *= xs[i]
	}
	for _, i := range yFree {
		n *= ys[i]
	}
	xm := b.Reshape(Transpose(b, x, append(append([]int(nil), xFree...), xa...)...), Shape{m, k})
	ym := b.Reshape(Transpose(b, y, append(append([]int(nil), ya...), yFree...)...), Shape{k, n})
	if outShape == nil {
		outShape = Shape{}
	}
	return b.Reshape(b.MatMul(xm, ym), outShape)
}

// TensordotN is Tensordot over the last n axes of x and the first n of y
// (Keras's axes=n).
func TensordotN(b Builder, x, y Value, n int) Value {
	if missing(b, "Tensordot", []string{"x1", "x2"}, x, y) {
		return b.Fail(nil, b.Err())
	}
	if n < 0 || n > len(x.Shape()) || n > len(y.Shape()) {
		return failf(b, "Tensordot", x.Shape(), "axes = %d for operands %v and %v", n, x.Shape(), y.Shape())
	}
	xa, ya := make([]int, n), make([]int, n)
	for i := 0; i < n; i++ {
		xa[i], ya[i] = len(x.Shape())-n+i, i
	}
	return Tensordot(b, x, y, xa, ya)
}

func nonNil(v []int) []int {
	if v == nil {
		return []int{}
	}
	return v
}

// Outer is the outer product of x and y, flattened first.
func Outer(b Builder, x, y Value) Value {
	if missing(b, "Outer", []string{"x1", "x2"}, x, y) {
		return b.Fail(nil, b.Err())
	}
	m, n := x.Shape().Size(), y.Shape().Size()
	return b.Mul(b.Reshape(x, Shape{m, 1}), b.Reshape(y, Shape{1, n}))
}

// Inner is the sum of products over the last axes of x and y.
func Inner(b Builder, x, y Value) Value {
	if missing(b, "Inner", []string{"x1", "x2"}, x, y) {
		return b.Fail(nil, b.Err())
	}
	if len(x.Shape()) == 0 || len(y.Shape()) == 0 {
		return b.Mul(x, y)
	}
	return Tensordot(b, x, y, []int{-1}, []int{-1})
}

// Vdot is the sum of products of x and y flattened.
func Vdot(b Builder, x, y Value) Value {
	if missing(b, "Vdot", []string{"x1", "x2"}, x, y) {
		return b.Fail(nil, b.Err())
	}
	if x.Shape().Size() != y.Shape().Size() {
		return failf(b, "Vdot", Shape{}, "x1 %v and x2 %v have different sizes", x.Shape(), y.Shape())
	}
	return b.Sum(b.Mul(Ravel(b, x), Ravel(b, y)))
}

// Kron is the Kronecker product of x and y (of equal rank, or lifted to
// it with leading 1s).
func Kron(b Builder, x, y Value) Value {
	if missing(b, "Kron", []string{"x1", "x2"}, x, y) {
		return b.Fail(nil, b.Err())
	}
	xs, ys := x.Shape().Clone(), y.Shape().Clone()
	for len(xs) < len(ys) {
		xs = append(Shape{1}, xs...)
	}
	for len(ys) < len(xs) {
		ys = append(Shape{1}, ys...)
	}
	r := len(xs)
	xi, yi, out := make(Shape, 0, 2*r), make(Shape, 0, 2*r), make(Shape, r)
	for i := 0; i < r; i++ {
		xi = append(xi, xs[i], 1)
		yi = append(yi, 1, ys[i])
		out[i] = xs[i] * ys[i]
	}
	return b.Reshape(b.Mul(b.Reshape(x, xi), b.Reshape(y, yi)), out)
}

// Cross is the cross product of 3-vectors along the last axes,
// broadcasting the others.
func Cross(b Builder, x, y Value) Value {
	if missing(b, "Cross", []string{"x1", "x2"}, x, y) {
		return b.Fail(nil, b.Err())
	}
	if lastDim(x.Shape()) != 3 || lastDim(y.Shape()) != 3 {
		return failf(b, "Cross", x.Shape(), "operands %v and %v: the last axes must have size 3 (2-vectors are not supported)", x.Shape(), y.Shape())
	}
	ax, ay := len(x.Shape())-1, len(y.Shape())-1
	c := func(v Value, a, i int) Value { return sliceAxis(b, v, a, i, 1) }
	x0, x1, x2 := c(x, ax, 0), c(x, ax, 1), c(x, ax, 2)
	y0, y1, y2 := c(y, ay, 0), c(y, ay, 1), c(y, ay, 2)
	r0 := b.Sub(b.Mul(x1, y2), b.Mul(x2, y1))
	r1 := b.Sub(b.Mul(x2, y0), b.Mul(x0, y2))
	r2 := b.Sub(b.Mul(x0, y1), b.Mul(x1, y0))
	return b.Concat(len(r0.Shape())-1, r0, r1, r2)
}

// Einsum evaluates Einstein summation over operands, as NumPy's einsum
// with explicit output ("ij,jk->ik"), or implicit output (the labels
// used once, sorted). A label repeated within one operand (a trace) and
// ellipses are not supported yet.
func Einsum(b Builder, subscripts string, operands ...Value) Value {
	if missing(b, "Einsum", names("operands", len(operands)), operands...) {
		return b.Fail(nil, b.Err())
	}
	spec := strings.ReplaceAll(subscripts, " ", "")
	ins, out, explicit := strings.Cut(spec, "->")
	terms := strings.Split(ins, ",")
	if len(terms) != len(operands) {
		return failf(b, "Einsum", nil, "%q names %d operands but %d were given", subscripts, len(terms), len(operands))
	}
	size := map[rune]int{}
	count := map[rune]int{}
	for i, t := range terms {
		if strings.Contains(t, ".") {
			return failf(b, "Einsum", nil, "%q: ellipses (...) are not supported yet: write every axis", subscripts)
		}
		s := operands[i].Shape()
		if len([]rune(t)) != len(s) {
			return failf(b, "Einsum", nil, "%q: term %q has %d labels but operand %d has shape %v", subscripts, t, len([]rune(t)), i, s)
		}
		seen := map[rune]bool{}
		for j, l := range t {
			if seen[l] {
				return failf(b, "Einsum", nil, "%q: label %q repeats within term %q (traces and diagonals are not supported yet)", subscripts, l, t)
			}
			seen[l] = true
			if d, ok := size[l]; ok && d != s[j] && d != 1 && s[j] != 1 {
				return failf(b, "Einsum", nil, "%q: label %q has size %d in one operand and %d in another", subscripts, l, d, s[j])
			}
			if s[j] > size[l] {
				size[l] = s[j]
			}
			count[l]++
		}
	}
	if !explicit {
		var once []rune
		for l, c := range count {
			if c == 1 {
				once = append(once, l)
			}
		}
		sortRunes(once)
		out = string(once)
	}
	for _, l := range out {
		if _, ok := size[l]; !ok {
			return failf(b, "Einsum", nil, "%q: output label %q appears in no input", subscripts, l)
		}
	}
	// all labels: the output's, then the summed ones
	labels := []rune(out)
	for _, t := range terms {
		for _, l := range t {
			if !strings.ContainsRune(string(labels), l) {
				labels = append(labels, l)
			}
		}
	}
	full := make(Shape, len(labels))
	for i, l := range labels {
		full[i] = size[l]
	}
	// align each operand to the full label order and multiply
	var prod Value
	for i, t := range terms {
		perm := make([]int, 0, len(t))
		view := make(Shape, len(labels))
		tl := []rune(t)
		for j, l := range labels {
			view[j] = 1
			for k, m := range tl {
				if m == l {
					perm = append(perm, k)
					view[j] = operands[i].Shape()[k]
				}
			}
		}
		v := b.Reshape(Transpose(b, operands[i], perm...), view)
		if prod == nil {
			prod = v
		} else {
			prod = b.Mul(prod, v)
		}
	}
	prod = broadcastTo(b, prod, full)
	nOut := len([]rune(out))
	if nOut < len(labels) {
		axes := make([]int, 0, len(labels)-nOut)
		for i := nOut; i < len(labels); i++ {
			axes = append(axes, i)
		}
		prod = b.Sum(prod, axes...)
	}
	return prod
}

func sortRunes(r []rune) {
	for i := 1; i < len(r); i++ {
		for j := i; j > 0 && r[j] < r[j-1]; j-- {
			r[j], r[j-1] = r[j-1], r[j]
		}
	}
}
