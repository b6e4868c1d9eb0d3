package ops

// Control flow. A kerasgo computation is built once with concrete shapes
// and run many times: on Gorgonia it is a graph, on libtorch a sequence of
// eager calls replayed per step. So a loop is a Go loop, run while the
// computation is built (unrolled on Gorgonia, where XLA would keep one
// loop), and a branch on a tensor computes both sides and selects, which
// gives Keras's values and gradients for branches without side effects.

// Cond is trueFn's outputs where pred (a scalar, or any tensor whose
// elements pick elementwise) is not 0, and falseFn's elsewhere; both
// branches must return values of the same shapes.
func Cond(b Builder, pred Value, trueFn, falseFn func() []Value) []Value {
	if missing(b, "Cond", []string{"pred"}, pred) {
		return failedList(b, 1)
	}
	t, f := trueFn(), falseFn()
	if len(t) != len(f) {
		failf(b, "Cond", pred.Shape(), "true_fn returned %d values and false_fn %d: they must match", len(t), len(f))
		return failedList(b, max(len(t), len(f)))
	}
	out := make([]Value, len(t))
	p := b.StopGradient(pred)
	for i := range t {
		if t[i] == nil || f[i] == nil || !t[i].Shape().Equal(f[i].Shape()) {
			failf(b, "Cond", pred.Shape(), "output %d of the branches differs in shape (%v and %v)", i, shapeOrNil(t[i]), shapeOrNil(f[i]))
			return failedList(b, len(t))
		}
		out[i] = b.Where(p, t[i], f[i])
	}
	return out
}

func shapeOrNil(v Value) any {
	if v == nil {
		return "nil"
	}
	return v.Shape()
}

// Switch applies the branch that index (a scalar whole number, clamped to
// the branches) selects to operands.
func Switch(b Builder, index Value, branches []func(operands []Value) []Value, operands ...Value) []Value {
	if missing(b, "Switch", []string{"index"}, index) {
		return failedList(b, 1)
	}
	if len(branches) == 0 {
		failf(b, "Switch", index.Shape(), "no branches")
		return failedList(b, 1)
	}
	i := Clip(b, b.StopGradient(index), 0, float64(len(branches)-1))
	out := branches[len(branches)-1](operands)
	for k := len(branches) - 2; k >= 0; k-- {
		k := k
		pick := b.Sub(scalar(b, 1), b.Add(b.Greater(i, scalar(b, float64(k))), b.Greater(scalar(b, float64(k)), i)))
		out = Cond(b, pick, func() []Value { return branches[k](operands) }, func() []Value { return out })
	}
	return out
}

// ForiLoop runs state = body(i, state) for i from lower up to (not
// including) upper.
func ForiLoop(b Builder, lower, upper int, body func(i int, state []Value) []Value, init []Value) []Value {
	state := init
	for i := lower; i < upper; i++ {
		state = body(i, state)
	}
	return state
}

// WhileLoop runs state = body(state) while cond(state) is not 0, at most
// maxIterations times: the bound kerasgo needs (Keras's
// maximum_iterations), as the computation's size is fixed when it is
// built. Each round's state is kept only while every cond so far held,
// so body may be evaluated on a finished state without harm.
func WhileLoop(b Builder, cond func(state []Value) Value, body func(state []Value) []Value, init []Value, maxIterations int) []Value {
	if maxIterations <= 0 {
		failf(b, "WhileLoop", nil, "maximum_iterations must be positive, got %d: kerasgo builds the loop's rounds ahead", maxIterations)
		return failedList(b, len(init))
	}
	state := init
	running := scalar(b, 1)
	for k := 0; k < maxIterations; k++ {
		c := cond(state)
		if c == nil {
			failf(b, "WhileLoop", nil, "cond returned nil")
			return failedList(b, len(init))
		}
		running = b.Mul(running, notZero(b, b.StopGradient(c)))
		next := body(state)
		if len(next) != len(state) {
			failf(b, "WhileLoop", nil, "body returned %d values for %d loop variables", len(next), len(state))
			return failedList(b, len(init))
		}
		for i := range state {
			next[i] = b.Where(running, next[i], state[i])
		}
		state = next
	}
	return state
}

// Scan runs carry, y = f(carry, x) over the slices x of xs along axis 0
// (from the end if reverse), returning the last carry and the ys stacked
// along a new axis 0, in xs's order.
func Scan(b Builder, f func(carry, x Value) (Value, Value), init, xs Value, reverse bool) (carry, ys Value) {
	if missing(b, "Scan", []string{"init", "xs"}, init, xs) {
		bad := b.Fail(nil, b.Err())
		return bad, bad
	}
	if len(xs.Shape()) == 0 {
		bad := failf(b, "Scan", xs.Shape(), "xs must have an axis to scan over")
		return bad, bad
	}
	items := Unstack(b, xs, 0)
	out := make([]Value, len(items))
	carry = init
	for k := range items {
		i := k
		if reverse {
			i = len(items) - 1 - k
		}
		carry, out[i] = f(carry, items[i])
	}
	return carry, Stack(b, out, 0)
}

// Map applies f to each slice of xs along axis 0 and stacks the results.
func Map(b Builder, f func(x Value) Value, xs Value) Value {
	if missing(b, "Map", []string{"xs"}, xs) {
		return b.Fail(nil, b.Err())
	}
	if len(xs.Shape()) == 0 {
		return failf(b, "Map", xs.Shape(), "xs must have an axis to map over")
	}
	items := Unstack(b, xs, 0)
	out := make([]Value, len(items))
	for i, x := range items {
		out[i] = f(x)
	}
	return Stack(b, out, 0)
}

// VectorizedMap is Map: kerasgo builds each slice's computation.
func VectorizedMap(b Builder, f func(x Value) Value, elements Value) Value {
	return Map(b, f, elements)
}

// AssociativeScan is the inclusive scan of elements along axis with the
// associative f (applied to aligned slices), in log₂(n) rounds; from the
// end if reverse.
func AssociativeScan(b Builder, f func(x, y Value) Value, elements Value, reverse bool, axis int) Value {
	if missing(b, "AssociativeScan", []string{"elems"}, elements) {
		return b.Fail(nil, b.Err())
	}
	a, ok := axisOf(b, "AssociativeScan", elements, axis)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	x := elements
	if reverse {
		x = Flip(b, x, a)
	}
	n := x.Shape()[a]
	for shift := 1; shift < n; shift *= 2 {
		head := sliceAxis(b, x, a, 0, shift)
		tail := f(sliceAxis(b, x, a, 0, n-shift), sliceAxis(b, x, a, shift, n-shift))
		x = b.Concat(a, head, tail)
	}
	if reverse {
		x = Flip(b, x, a)
	}
	return x
}
