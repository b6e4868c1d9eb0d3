package backend

import (
	"fmt"
	"runtime/debug"
)

// NewBuilder returns a Builder that validates each op's arguments, records
// the first error, and calls ops for valid ones. Engine adapters use it so
// that every engine reports shape errors the same way.
func NewBuilder(ops Ops) Builder { return &checked{ops: ops} }

type checked struct {
	ops   Ops
	err   error
	scope string // what the ops being built compute (SetScope): "layer dense (Dense)"
	// inGradient counts the custom gradients' functions being built
	// (CustomGradient), inside which Grad is refused.
	inGradient int
	autocast   DType // SetAutocast's setting: Float32 is none
	// depth counts the ops being run (call): an op built inside another
	// (a custom gradient's, inside Grad) starts no new op for OpStarter.
	depth int
}

// OpStarter is implemented by engines' Ops that free a value once the
// last op reading it has run (the libtorch engine, as PyTorch frees a
// tensor no one holds): the Builder calls BeginOp before each op it runs
// that is not inside another, so that an engine never frees a value
// while an op still holds it.
type OpStarter interface {
	BeginOp()
}

// Scoper is implemented by builders and engines that label the ops they
// build with what builds them (Keras's name scopes), so that an error in
// an op, when it is built or when it runs, names the layer, loss or
// metric.
type Scoper interface {
	// SetScope labels the ops built from now on ("" for none), e.g.
	// `layer "embedding" (Embedding)` or `metric mae`.
	SetScope(scope string)
}

// SetScope labels the ops built from now on: an op that fails names the
// scope, and engines that implement Scoper label their ops with it too.
func (c *checked) SetScope(scope string) {
	c.scope = scope
	if s, ok := c.ops.(Scoper); ok {
		s.SetScope(scope)
	}
}

// Autocaster is implemented by builders and engines that compute the
// ops of a float32 Func in a half-precision dtype on request, as Keras
// computes a layer under a mixed-precision policy: the operands are
// rounded to it, each op computes in it (a product accumulating in
// float32 where the engine's kernels do) and its result is rounded to
// it, and gradients flow through the casts. Every Value stays float32 to
// the Builder. The normalizations (BatchNormalize, LayerNormalize)
// compute in float32 and round only their output, as Keras's
// ops.layer_normalization and normalization layers do. Layers set it from their Keras dtype policy
// ("mixed_bfloat16" is BFloat16) around their Call; an engine computes
// only the dtypes its Capabilities.Autocast lists, and float32 for any
// other.
type Autocaster interface {
	// SetAutocast sets the dtype the ops built from now on compute in
	// (Float32 for none) and returns the setting it replaces.
	SetAutocast(d DType) DType
	// RoundToAutocast rounds a float32 value to the nearest number the
	// autocast dtype holds (kept as float32), as a layer's inputs and
	// outputs are rounded under a mixed-precision policy; with no
	// autocast, or on an engine that computes it in float32, it returns
	// x. Its gradient is rounded the same way.
	RoundToAutocast(x Value) Value
}

// AutocastOps is implemented by engines' Ops that autocast (see
// Autocaster); the Builder calls them.
type AutocastOps interface {
	SetAutocast(d DType) DType
	RoundToAutocast(x Value) (Value, error)
}

// SetAutocast sets the dtype the ops built from now on compute in,
// telling engines that implement AutocastOps,
// and returns the setting it replaces.
func (c *checked) SetAutocast(d DType) DType {
	before := c.autocast
	c.autocast = d
	if a, ok := c.ops.(AutocastOps); ok {
		a.SetAutocast(d)
	}
	return before
}

// RoundToAutocast rounds x to the autocast dtype on engines that
// autocast, and returns it as it is on others.
func (c *checked) RoundToAutocast(x Value) Value {
	a, ok := c.ops.(AutocastOps)
	if !ok || c.autocast == Float32 || x == nil || x.DType() != Float32 || !c.ok(x) {
		return x
	}
	return c.call("RoundToAutocast", x.Shape(), func() (Value, error) { return a.RoundToAutocast(x) })
}

// inFloat32 runs op with autocast off, for an op Keras computes in at
// least float32 under a mixed policy, and rounds its first result to the
// autocast dtype, as Keras casts it back; any other results (a batch's
// statistics) stay float32.
func (c *checked) inFloat32(op func() []Value) []Value {
	d := c.autocast
	if d == Float32 {
		return op()
	}
	c.SetAutocast(Float32)
	out := op()
	c.SetAutocast(d)
	out[0] = c.RoundToAutocast(out[0])
	return out
}

// failed is the placeholder Value returned once an op has failed.
type failed struct {
	shape Shape
	dtype DType
}

func (f failed) Shape() Shape { return f.shape }
func (f failed) DType() DType { return f.dtype }

func (c *checked) DType() DType { return c.ops.DType() }
func (c *checked) Err() error   { return c.err }

// Fail records err as the builder's first error and returns a
// placeholder of shape s.
func (c *checked) Fail(s Shape, err error) Value { return c.fail(s, "%w", err) }

func (c *checked) fail(s Shape, format string, args ...any) Value {
	if c.err == nil {
		c.err = fmt.Errorf(format, args...)
		if c.scope != "" {
			c.err = fmt.Errorf("%s: %w", c.scope, c.err)
		}
	}
	return failed{shape: s, dtype: c.ops.DType()}
}

// ok reports whether the builder can go on: no error yet, no placeholder
// among the arguments, and no int32 value (token ids go to Gather or
// Cast, which use okAny).
func (c *checked) ok(vs ...Value) bool {
	if !c.okAny(vs...) {
		return false
	}
	for _, v := range vs {
		if v.DType() == Int32 {
			c.fail(nil, "an int32 value (token ids) of shape %v reached an op that computes in %v: look its rows up (Embedding, Gather) or Cast it", v.Shape(), c.ops.DType())
			return false
		}
	}
	return true
}

// okAny is ok for ops that take int32 values.
func (c *checked) okAny(vs ...Value) bool {
	if c.err != nil {
		return false
	}
	for _, v := range vs {
		if v == nil {
			c.fail(nil, "nil Value passed to a Builder op")
			return false
		}
		if _, bad := v.(failed); bad {
			return false
		}
	}
	return true
}

func (c *checked) Cast(x Value) Value {
	if !c.okAny(x) {
		return failed{shape: shapeOf(x), dtype: c.ops.DType()}
	}
	if x.DType() != Int32 {
		return x
	}
	return c.call("Cast", x.Shape(), func() (Value, error) { return c.ops.Cast(x) })
}

// call runs an engine op, turning an error or a panic into the sticky error.
func (c *checked) call(name string, s Shape, f func() (Value, error)) (v Value) {
	if c.depth == 0 {
		if st, ok := c.ops.(OpStarter); ok {
			st.BeginOp()
		}
	}
	c.depth++
	defer func() {
		c.depth--
		if r := recover(); r != nil {
			v = c.fail(s, "%s: engine panicked: %v\n%s", name, r, debug.Stack())
		}
	}()
	v, err := f()
	if err != nil {
		return c.fail(s, "%s: %w", name, err)
	}
	return v
}

func (c *checked) Scalar(v float64) Value {
	if !c.ok() {
		return failed{shape: Shape{}, dtype: c.ops.DType()}
	}
	return c.call("Scalar", Shape{}, func() (Value, error) { return c.ops.Scalar(v) })
}

func (c *checked) Constant(data []float64, s Shape) Value {
	if !c.ok() {
		return failed{shape: s, dtype: c.ops.DType()}
	}
	if s.Size() != len(data) {
		return c.fail(s, "Constant: %d values do not fill shape %v (size %d)", len(data), s, s.Size())
	}
	return c.call("Constant", s, func() (Value, error) { return c.ops.Constant(data, s.Clone()) })
}

func (c *checked) unary(op UnaryOp, x Value) Value {
	if !c.ok(x) {
		return failed{shape: shapeOf(x), dtype: c.ops.DType()}
	}
	if (op == OpSoftmax || op == OpLogSoftmax) && len(x.Shape()) == 0 {
		return c.fail(x.Shape(), "%v needs at least one axis; got a scalar", op)
	}
	return c.call(op.String(), x.Shape(), func() (Value, error) { return c.ops.Unary(op, x) })
}

func (c *checked) binary(op BinaryOp, a, b Value) Value {
	if !c.ok(a, b) {
		return failed{shape: shapeOf(a), dtype: c.ops.DType()}
	}
	out, err := BroadcastShapes(a.Shape(), b.Shape())
	if err != nil {
		return c.fail(a.Shape(), "%v: %w", op, err)
	}
	return c.call(op.String(), out, func() (Value, error) { return c.ops.Binary(op, a, b, out) })
}

func (c *checked) Add(a, b Value) Value     { return c.binary(OpAdd, a, b) }
func (c *checked) Sub(a, b Value) Value     { return c.binary(OpSub, a, b) }
func (c *checked) Mul(a, b Value) Value     { return c.binary(OpMul, a, b) }
func (c *checked) Div(a, b Value) Value     { return c.binary(OpDiv, a, b) }
func (c *checked) Maximum(a, b Value) Value { return c.binary(OpMaximum, a, b) }
func (c *checked) Minimum(a, b Value) Value { return c.binary(OpMinimum, a, b) }
func (c *checked) Greater(a, b Value) Value { return c.binary(OpGreater, a, b) }

func (c *checked) Equal(a, b Value) Value {
	if c.ok(a, b) && !a.Shape().Equal(b.Shape()) {
		return c.fail(a.Shape(), "Equal needs operands of one shape; got %v and %v", a.Shape(), b.Shape())
	}
	return c.binary(OpEqual, a, b)
}

func (c *checked) Neg(x Value) Value        { return c.unary(OpNeg, x) }
func (c *checked) Exp(x Value) Value        { return c.unary(OpExp, x) }
func (c *checked) Log(x Value) Value        { return c.unary(OpLog, x) }
func (c *checked) Sqrt(x Value) Value       { return c.unary(OpSqrt, x) }
func (c *checked) Square(x Value) Value     { return c.unary(OpSquare, x) }
func (c *checked) Relu(x Value) Value       { return c.unary(OpRelu, x) }
func (c *checked) Sigmoid(x Value) Value    { return c.unary(OpSigmoid, x) }
func (c *checked) Tanh(x Value) Value       { return c.unary(OpTanh, x) }
func (c *checked) Softmax(x Value) Value    { return c.unary(OpSoftmax, x) }
func (c *checked) LogSoftmax(x Value) Value { return c.unary(OpLogSoftmax, x) }
func (c *checked) Erf(x Value) Value        { return c.unary(OpErf, x) }
func (c *checked) Sin(x Value) Value        { return c.unary(OpSin, x) }
func (c *checked) Cos(x Value) Value        { return c.unary(OpCos, x) }
func (c *checked) Floor(x Value) Value      { return c.unary(OpFloor, x) }
func (c *checked) Abs(x Value) Value        { return c.unary(OpAbs, x) }
func (c *checked) Log1p(x Value) Value      { return c.unary(OpLog1p, x) }
func (c *checked) Expm1(x Value) Value      { return c.unary(OpExpm1, x) }
func (c *checked) Atan(x Value) Value       { return c.unary(OpAtan, x) }
func (c *checked) ErfInv(x Value) Value     { return c.unary(OpErfInv, x) }
func (c *checked) StopGradient(x Value) Value {
	return c.unary(OpStopGradient, x)
}

func (c *checked) Where(cond, a, b Value) Value {
	if !c.ok(cond, a, b) {
		return failed{shape: shapeOf(a), dtype: c.ops.DType()}
	}
	ab, err := BroadcastShapes(a.Shape(), b.Shape())
	if err == nil {
		ab, err = BroadcastShapes(cond.Shape(), ab)
	}
	if err != nil {
		return c.fail(a.Shape(), "Where: the condition %v and the operands %v and %v do not broadcast together", cond.Shape(), a.Shape(), b.Shape())
	}
	return c.call("Where", ab, func() (Value, error) { return c.ops.Where(cond, a, b, ab.Clone()) })
}

func (c *checked) BatchMatMul(a, b Value) Value {
	if !c.ok(a, b) {
		return failed{shape: shapeOf(a), dtype: c.ops.DType()}
	}
	as, bs := a.Shape(), b.Shape()
	r := len(as)
	if r < 3 || len(bs) != r || !as[:r-2].Equal(bs[:r-2]) || as[r-1] != bs[r-2] {
		return c.fail(as, "BatchMatMul needs (batch..., m, k) x (batch..., k, n) with the same batch axes; got %v x %v", as, bs)
	}
	out := append(as[:r-1].Clone(), bs[r-1])
	return c.call("BatchMatMul", out, func() (Value, error) { return c.ops.BatchMatMul(a, b, out) })
}

func (c *checked) MatMul(a, b Value) Value {
	if !c.ok(a, b) {
		return failed{shape: shapeOf(a), dtype: c.ops.DType()}
	}
	as, bs := a.Shape(), b.Shape()
	if len(as) != 2 || len(bs) != 2 || as[1] != bs[0] {
		return c.fail(as, "MatMul needs (m, k) x (k, n) matrices; got %v x %v", as, bs)
	}
	return c.call("MatMul", Shape{as[0], bs[1]}, func() (Value, error) { return c.ops.MatMul(a, b) })
}

func (c *checked) reduce(op ReduceOp, x Value, axes []int) Value {
	if !c.ok(x) {
		return failed{shape: Shape{}, dtype: c.ops.DType()}
	}
	norm, err := NormalizeAxes(len(x.Shape()), axes)
	if err != nil {
		return c.fail(Shape{}, "%v of %v: %w", op, x.Shape(), err)
	}
	if len(norm) == 0 { // reducing a scalar over all (zero) axes is the identity
		return x
	}
	out := ReducedShape(x.Shape(), norm)
	return c.call(op.String(), out, func() (Value, error) { return c.ops.Reduce(op, x, norm) })
}

func (c *checked) Sum(x Value, axes ...int) Value  { return c.reduce(OpSum, x, axes) }
func (c *checked) Mean(x Value, axes ...int) Value { return c.reduce(OpMean, x, axes) }

func (c *checked) Reshape(x Value, s Shape) Value {
	if !c.ok(x) {
		return failed{shape: s, dtype: c.ops.DType()}
	}
	if s.Size() != x.Shape().Size() {
		return c.fail(s, "cannot reshape %v (%d values) to %v (%d values)", x.Shape(), x.Shape().Size(), s, s.Size())
	}
	if s.Equal(x.Shape()) {
		return x
	}
	return c.call("Reshape", s, func() (Value, error) { return c.ops.Reshape(x, s.Clone()) })
}

func (c *checked) Concat(axis int, xs ...Value) Value {
	if !c.ok(xs...) {
		return failed{shape: shapeOf(firstOr(xs)), dtype: c.ops.DType()}
	}
	if len(xs) == 0 {
		return c.fail(Shape{}, "Concat needs at least one operand")
	}
	out, err := ConcatShape(axis, shapesOf(xs)...)
	if err != nil {
		return c.fail(xs[0].Shape(), "%w", err)
	}
	if len(xs) == 1 {
		return xs[0]
	}
	a := axis
	if a < 0 {
		a += len(out)
	}
	return c.call("Concat", out, func() (Value, error) { return c.ops.Concat(xs, a, out) })
}

func (c *checked) Transpose(x Value, perm ...int) Value {
	if !c.ok(x) {
		return failed{shape: shapeOf(x), dtype: c.ops.DType()}
	}
	s := x.Shape()
	if len(perm) != len(s) {
		return c.fail(s, "Transpose of %v needs a permutation of its %d axes; got %v", s, len(s), perm)
	}
	seen := make([]bool, len(s))
	identity := true
	out := make(Shape, len(s))
	for i, p := range perm {
		if p < 0 || p >= len(s) || seen[p] {
			return c.fail(s, "Transpose of %v needs a permutation of its %d axes; got %v", s, len(s), perm)
		}
		seen[p] = true
		identity = identity && p == i
		out[i] = s[p]
	}
	if identity {
		return x
	}
	return c.call("Transpose", out, func() (Value, error) { return c.ops.Transpose(x, append([]int(nil), perm...), out) })
}

func (c *checked) Slice(x Value, begin, size []int) Value {
	if !c.ok(x) {
		return failed{shape: Shape(size).Clone(), dtype: c.ops.DType()}
	}
	s := x.Shape()
	if len(begin) != len(s) || len(size) != len(s) {
		return c.fail(Shape(size).Clone(), "Slice of %v needs a begin and a size per axis; got %v and %v", s, begin, size)
	}
	whole := true
	for i := range s {
		if begin[i] < 0 || size[i] < 1 || begin[i]+size[i] > s[i] {
			return c.fail(Shape(size).Clone(), "Slice of %v: begin %v size %v is outside it", s, begin, size)
		}
		whole = whole && begin[i] == 0 && size[i] == s[i]
	}
	if whole {
		return x
	}
	return c.call("Slice", Shape(size).Clone(), func() (Value, error) {
		return c.ops.Slice(x, append([]int(nil), begin...), append([]int(nil), size...))
	})
}

func firstOr(xs []Value) Value {
	if len(xs) == 0 {
		return nil
	}
	return xs[0]
}

func shapesOf(xs []Value) []Shape {
	out := make([]Shape, len(xs))
	for i, x := range xs {
		out[i] = x.Shape()
	}
	return out
}

func (c *checked) Conv2D(x, k Value, o ConvOptions) Value {
	if !c.ok(x, k) {
		return failed{shape: shapeOf(x), dtype: c.ops.DType()}
	}
	out, err := Conv2DShape(x.Shape(), k.Shape(), o)
	if err != nil {
		return c.fail(x.Shape(), "%w", err)
	}
	return c.call("Conv2D", out, func() (Value, error) { return c.ops.Conv2D(x, k, o.Normalized(), out) })
}

func (c *checked) MaxPool2D(x Value, o PoolOptions) Value {
	if !c.ok(x) {
		return failed{shape: shapeOf(x), dtype: c.ops.DType()}
	}
	out, err := MaxPool2DShape(x.Shape(), o)
	if err != nil {
		return c.fail(x.Shape(), "%w", err)
	}
	return c.call("MaxPool2D", out, func() (Value, error) { return c.ops.MaxPool2D(x, o.Normalized(), out) })
}

func (c *checked) ArgMax(x Value) Value {
	if !c.ok(x) {
		return failed{shape: shapeOf(x), dtype: c.ops.DType()}
	}
	s := x.Shape()
	if len(s) == 0 {
		return c.fail(s, "ArgMax needs at least one axis; got a scalar")
	}
	return c.call("ArgMax", s[:len(s)-1].Clone(), func() (Value, error) { return c.ops.ArgMax(x) })
}

func (c *checked) OneHot(x Value, depth int) Value {
	if !c.ok(x) {
		return failed{shape: shapeOf(x), dtype: c.ops.DType()}
	}
	out := append(x.Shape().Clone(), depth)
	if depth <= 0 {
		return c.fail(out, "OneHot needs a positive depth; got %d", depth)
	}
	return c.call("OneHot", out, func() (Value, error) { return c.ops.OneHot(x, depth) })
}

func (c *checked) Gather(table, indices Value) Value {
	if !c.ok(table) || !c.okAny(indices) {
		return failed{shape: shapeOf(indices), dtype: c.ops.DType()}
	}
	t := table.Shape()
	out := append(indices.Shape().Clone(), t[min(1, len(t)):]...)
	if len(t) == 0 || t[0] == 0 {
		return c.fail(out, "Gather needs a table with at least one row; got shape %v", t)
	}
	return c.call("Gather", out, func() (Value, error) { return c.ops.Gather(table, indices, out) })
}

func (c *checked) RandomUniform(s Shape) Value {
	if !c.ok() {
		return failed{shape: s, dtype: c.ops.DType()}
	}
	if s.Size() < 0 {
		return c.fail(s, "RandomUniform needs a concrete shape; got %v", s)
	}
	return c.call("RandomUniform", s, func() (Value, error) { return c.ops.RandomUniform(s.Clone()) })
}

func (c *checked) RandomUniformFrom(seed Value, s Shape) Value {
	if !c.ok(seed) {
		return failed{shape: s, dtype: c.ops.DType()}
	}
	switch {
	case !seed.Shape().Equal(Shape{2}):
		return c.fail(s, "RandomUniformFrom needs a seed of shape (2,) (a SeedGenerator's state); got %v", seed.Shape())
	case s.Size() < 0:
		return c.fail(s, "RandomUniformFrom needs a concrete shape; got %v", s)
	}
	return c.call("RandomUniformFrom", s, func() (Value, error) { return c.ops.RandomUniformFrom(seed, s.Clone()) })
}

func (c *checked) RandomNormal(s Shape) Value {
	if !c.ok() {
		return failed{shape: s, dtype: c.ops.DType()}
	}
	if s.Size() < 0 {
		return c.fail(s, "RandomNormal needs a concrete shape; got %v", s)
	}
	return c.call("RandomNormal", s, func() (Value, error) { return c.ops.RandomNormal(s.Clone()) })
}

func (c *checked) Grad(loss Value, wrt []Value) []Value {
	fill := func() []Value {
		out := make([]Value, len(wrt))
		for i, w := range wrt {
			out[i] = failed{shape: shapeOf(w), dtype: c.ops.DType()}
		}
		return out
	}
	if !c.ok(append([]Value{loss}, wrt...)...) {
		return fill()
	}
	if len(loss.Shape()) != 0 {
		c.fail(nil, "Grad needs a scalar loss; got shape %v", loss.Shape())
		return fill()
	}
	if c.inGradient > 0 {
		c.fail(nil, "Grad inside a custom gradient's function (CustomGradient) is not supported: build the gradient from the upstream gradient and the values forward computed")
		return fill()
	}
	var grads []Value
	c.call("Grad", nil, func() (Value, error) {
		g, err := c.ops.Grad(loss, wrt)
		grads = g
		return nil, err
	})
	if c.err != nil {
		return fill()
	}
	return grads
}

func shapeOf(v Value) Shape {
	if v == nil {
		return nil
	}
	return v.Shape()
}
