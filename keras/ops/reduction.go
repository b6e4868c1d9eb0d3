package ops

import "math"

// AxisOption picks the axes an op works along (Axis) and, for
// reductions, whether to keep them as size 1 (KeepDims): Keras's axis
// and keepdims arguments.
type AxisOption func(*reduceConfig)

type reduceConfig struct {
	axes     []int
	hasAxes  bool
	keepDims bool
}

// Axis reduces over the given axes (negative counts from the end).
// Without it a reduction covers every axis, as Keras's axis=None.
func Axis(axes ...int) AxisOption {
	return func(c *reduceConfig) { c.axes, c.hasAxes = append([]int(nil), axes...), true }
}

// KeepDims keeps the reduced axes with size 1, as keepdims=True.
func KeepDims() AxisOption { return func(c *reduceConfig) { c.keepDims = true } }

func reduceOptions(opts []AxisOption) reduceConfig {
	var c reduceConfig
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// reduction resolves the options against x: the normalised axes (sorted,
// distinct) and the shape to give the result when keeping dims.
func reduction(b Builder, op string, x Value, opts []AxisOption) (axes []int, keep Shape, ok bool) {
	if missing(b, op, []string{"x"}, x) {
		return nil, nil, false
	}
	c := reduceOptions(opts)
	var in []int
	if c.hasAxes {
		in = c.axes
		if in == nil {
			in = []int{}
		}
	}
	if axes, ok = axesOf(b, op, x, in); !ok {
		return nil, nil, false
	}
	if c.keepDims {
		keep = x.Shape().Clone()
		for _, a := range axes {
			keep[a] = 1
		}
	}
	return axes, keep, true
}

// finish reshapes a reduction's result to keep the reduced axes.
func finish(b Builder, y Value, keep Shape) Value {
	if keep == nil {
		return y
	}
	return b.Reshape(y, keep)
}

// Sum adds over the chosen axes.
func Sum(b Builder, x Value, opts ...AxisOption) Value {
	axes, keep, ok := reduction(b, "Sum", x, opts)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if len(axes) == 0 {
		return x
	}
	return finish(b, b.Sum(x, axes...), keep)
}

// Mean averages over the chosen axes.
func Mean(b Builder, x Value, opts ...AxisOption) Value {
	axes, keep, ok := reduction(b, "Mean", x, opts)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if len(axes) == 0 {
		return x
	}
	return finish(b, b.Mean(x, axes...), keep)
}

// foldAxes reduces x over each axis in turn with the pairwise op f,
// halving the axis each round: log₂(n) ops per axis, differentiable
// through f.
func foldAxes(b Builder, x Value, axes []int, keep Shape, f func(x, y Value) Value) Value {
	for _, a := range axes {
		for n := x.Shape()[a]; n > 1; n = x.Shape()[a] {
			h := n / 2
			y := f(sliceAxis(b, x, a, 0, h), sliceAxis(b, x, a, h, h))
			if n%2 == 1 {
				y = b.Concat(a, y, sliceAxis(b, x, a, 2*h, 1))
			}
			x = y
		}
	}
	out := x.Shape().Clone()
	if keep != nil {
		return b.Reshape(x, keep)
	}
	dropped := out[:0]
	for i, d := range x.Shape() {
		if !contains(axes, i) {
			dropped = append(dropped, d)
		}
	}
	return b.Reshape(x, dropped)
}

func contains(xs []int, v int) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

func fold(b Builder, op string, x Value, opts []AxisOption, f func(x, y Value) Value) Value {
	axes, keep, ok := reduction(b, op, x, opts)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	for _, a := range axes {
		if x.Shape()[a] == 0 {
			return failf(b, op, x.Shape(), "axis %d of the input %v is empty, which has no %s", a, x.Shape(), op)
		}
	}
	return foldAxes(b, x, axes, keep, f)
}

// Max is the largest value over the chosen axes.
func Max(b Builder, x Value, opts ...AxisOption) Value { return fold(b, "Max", x, opts, b.Maximum) }

// Amax is Max.
func Amax(b Builder, x Value, opts ...AxisOption) Value { return fold(b, "Amax", x, opts, b.Maximum) }

// Min is the smallest value over the chosen axes.
func Min(b Builder, x Value, opts ...AxisOption) Value { return fold(b, "Min", x, opts, b.Minimum) }

// Amin is Min.
func Amin(b Builder, x Value, opts ...AxisOption) Value { return fold(b, "Amin", x, opts, b.Minimum) }

// Prod is the product over the chosen axes.
func Prod(b Builder, x Value, opts ...AxisOption) Value { return fold(b, "Prod", x, opts, b.Mul) }

// Any is 1 if any value over the chosen axes is not 0.
func Any(b Builder, x Value, opts ...AxisOption) Value {
	if missing(b, "Any", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	return fold(b, "Any", notZero(b, x), opts, b.Maximum)
}

// All is 1 if every value over the chosen axes is not 0.
func All(b Builder, x Value, opts ...AxisOption) Value {
	if missing(b, "All", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	return fold(b, "All", notZero(b, x), opts, b.Minimum)
}

// CountNonzero counts the values that are not 0 over the chosen axes.
func CountNonzero(b Builder, x Value, opts ...AxisOption) Value {
	if missing(b, "CountNonzero", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	return Sum(b, notZero(b, x), opts...)
}

// Ptp is Max - Min over the chosen axes ("peak to peak").
func Ptp(b Builder, x Value, opts ...AxisOption) Value {
	return b.Sub(Max(b, x, opts...), Min(b, x, opts...))
}

// Var is the population variance over the chosen axes.
func Var(b Builder, x Value, opts ...AxisOption) Value {
	m := Mean(b, x, append(opts, KeepDims())...)
	return Mean(b, b.Square(b.Sub(x, m)), opts...)
}

// Std is the population standard deviation over the chosen axes.
func Std(b Builder, x Value, opts ...AxisOption) Value { return b.Sqrt(Var(b, x, opts...)) }

// Average is the mean of x over the chosen axes weighted by weights (of
// x's shape, or 1-D along a single axis); nil weights give Mean.
func Average(b Builder, x, weights Value, opts ...AxisOption) Value {
	if weights == nil {
		return Mean(b, x, opts...)
	}
	c := reduceOptions(opts)
	w := weights
	if len(weights.Shape()) == 1 && len(x.Shape()) > 1 {
		if len(c.axes) != 1 {
			return failf(b, "Average", x.Shape(), "1-D weights %v need exactly one axis, got %v", weights.Shape(), c.axes)
		}
		a, ok := axisOf(b, "Average", x, c.axes[0])
		if !ok {
			return b.Fail(nil, b.Err())
		}
		s := make(Shape, len(x.Shape()))
		for i := range s {
			s[i] = 1
		}
		s[a] = weights.Shape()[0]
		if s[a] != x.Shape()[a] {
			return failf(b, "Average", x.Shape(), "weights of length %d along axis %d of an input %v: they must match", s[a], a, x.Shape())
		}
		w = b.Reshape(weights, s)
	}
	num := Sum(b, b.Mul(x, w), opts...)
	den := Sum(b, broadcastTo(b, w, x.Shape()), opts...)
	return b.Div(num, den)
}

// Logsumexp is log(Σ eˣ) over the chosen axes, computed without overflow.
func Logsumexp(b Builder, x Value, opts ...AxisOption) Value {
	m := b.StopGradient(Max(b, x, append(opts, KeepDims())...))
	m = b.Where(Isfinite(b, m), m, scalar(b, 0))
	s := Sum(b, b.Exp(b.Sub(x, m)), append(opts, KeepDims())...)
	r := b.Add(b.Log(s), m)
	c := reduceOptions(opts)
	if c.keepDims {
		return r
	}
	axes, _, ok := reduction(b, "Logsumexp", x, opts)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	return b.Reshape(r, dropAxes(x.Shape(), axes))
}

func dropAxes(s Shape, axes []int) Shape {
	out := Shape{}
	for i, d := range s {
		if !contains(axes, i) {
			out = append(out, d)
		}
	}
	return out
}

// Argmax is the index of the largest value along one axis, the first on
// ties, as whole numbers in the float dtype (Keras returns int32). Axis
// picks the axis (one); without it x is flattened first, as Keras's
// axis=None; KeepDims keeps the axis. Not differentiable.
func Argmax(b Builder, x Value, opts ...AxisOption) Value {
	return arg(b, "Argmax", x, opts, false)
}

// Argmin is the index of the smallest value, as Argmax.
func Argmin(b Builder, x Value, opts ...AxisOption) Value {
	return arg(b, "Argmin", x, opts, true)
}

// oneAxis reads options that name at most one axis: flat when none is
// given (Keras's axis=None).
func oneAxis(b Builder, op string, x Value, opts []AxisOption) (axis int, flat, ok bool) {
	c := reduceOptions(opts)
	if !c.hasAxes {
		return 0, true, true
	}
	if len(c.axes) != 1 {
		failf(b, op, x.Shape(), "axis %v: give one axis, or none to flatten", c.axes)
		return 0, false, false
	}
	axis, ok = axisOf(b, op, x, c.axes[0])
	return axis, false, ok
}

func arg(b Builder, op string, x Value, opts []AxisOption, min bool) Value {
	if missing(b, op, []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	c := reduceOptions(opts)
	x = b.StopGradient(x)
	if min {
		x = b.Neg(x)
	}
	a, flat, ok := oneAxis(b, op, x, opts)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if flat {
		r := b.ArgMax(b.Reshape(x, Shape{x.Shape().Size()}))
		if c.keepDims {
			s := make(Shape, len(x.Shape()))
			for i := range s {
				s[i] = 1
			}
			return b.Reshape(r, s)
		}
		return r
	}
	r := b.ArgMax(moveAxis(b, x, a, len(x.Shape())-1))
	if c.keepDims {
		s := x.Shape().Clone()
		s[a] = 1
		return b.Reshape(r, s)
	}
	return r
}

// Trace is the sum of the diagonal at offset of the 2-D planes of axes
// axis1 and axis2.
func Trace(b Builder, x Value, offset, axis1, axis2 int) Value {
	d := Diagonal(b, x, offset, axis1, axis2)
	return Sum(b, d, Axis(-1))
}

// NormOrd is a norm's order, Keras's ord: the zero value is ord=None
// (2 for vectors, Frobenius for matrices), Ord(p) a number, NormFro
// "fro".
type NormOrd struct {
	p   float64
	set bool
	fro bool
}

// Ord is the norm of order p: any p for vectors (0 counts nonzero values,
// ±Inf is the largest or smallest magnitude); 1, -1, ±Inf for matrices.
func Ord(p float64) NormOrd { return NormOrd{p: p, set: true} }

// NormFro is the Frobenius norm of a matrix ("fro").
var NormFro = NormOrd{fro: true}

// Norm is a vector or matrix norm as Keras's ops.norm (NumPy's
// linalg.norm). With no Axis it is the vector norm of x flattened, unless
// x is 2-D, where it is the matrix norm; one Axis gives vector norms, two
// give matrix norms.
func Norm(b Builder, x Value, ord NormOrd, opts ...AxisOption) Value {
	if missing(b, "Norm", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	c := reduceOptions(opts)
	matrix := (c.hasAxes && len(c.axes) == 2) || (!c.hasAxes && len(x.Shape()) == 2)
	if matrix {
		axes := c.axes
		if !c.hasAxes {
			axes = []int{0, 1}
		}
		return matrixNorm(b, x, ord, axes, c.keepDims)
	}
	if c.hasAxes && len(c.axes) != 1 {
		return failf(b, "Norm", x.Shape(), "axis %v: give one axis (vector norms) or two (matrix norms)", c.axes)
	}
	if ord.fro {
		return failf(b, "Norm", x.Shape(), "the Frobenius norm is a matrix norm: give two axes")
	}
	var sub []AxisOption
	if c.hasAxes {
		sub = append(sub, Axis(c.axes...))
	}
	if c.keepDims {
		sub = append(sub, KeepDims())
	}
	a := b.Abs(x)
	switch p := ord.p; {
	case !ord.set || p == 2:
		return b.Sqrt(Sum(b, b.Square(x), sub...))
	case math.IsInf(p, 1):
		return Max(b, a, sub...)
	case math.IsInf(p, -1):
		return Min(b, a, sub...)
	case p == 0:
		return CountNonzero(b, x, sub...)
	case p == 1:
		return Sum(b, a, sub...)
	default:
		s := Sum(b, Power(b, a, scalar(b, p)), sub...)
		return Power(b, s, scalar(b, 1/p))
	}
}

func matrixNorm(b Builder, x Value, ord NormOrd, axes []int, keep bool) Value {
	a0, ok0 := axisOf(b, "Norm", x, axes[0])
	a1, ok1 := axisOf(b, "Norm", x, axes[1])
	if !ok0 || !ok1 {
		return b.Fail(nil, b.Err())
	}
	if a0 == a1 {
		return failf(b, "Norm", x.Shape(), "the two axes %v are the same axis", axes)
	}
	var k []AxisOption
	if keep {
		k = append(k, KeepDims())
	}
	if !ord.set || ord.fro {
		return b.Sqrt(Sum(b, b.Square(x), append(k, Axis(a0, a1))...))
	}
	p := ord.p
	if p != 1 && p != -1 && !math.IsInf(p, 0) {
		return failf(b, "Norm", x.Shape(), "the matrix norm of order %v is not supported: use NormFro, Ord(1), Ord(-1) or Ord(±Inf) (2, -2 and the nuclear norm need an SVD)", p)
	}
	sumAxis, pickAxis := a0, a1 // ord 1: the largest column sum
	if math.IsInf(p, 0) {
		sumAxis, pickAxis = a1, a0 // ord Inf: the largest row sum
	}
	sums := Sum(b, b.Abs(x), Axis(sumAxis), KeepDims())
	var r Value
	if p > 0 {
		r = Max(b, sums, Axis(pickAxis), KeepDims())
	} else {
		r = Min(b, sums, Axis(pickAxis), KeepDims())
	}
	if keep {
		return r
	}
	return b.Reshape(r, dropAxes(x.Shape(), []int{a0, a1}))
}
