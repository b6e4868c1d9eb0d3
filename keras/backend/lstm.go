package backend

// RecurrentOptions configures [Builder.LSTMSequence] and
// [Builder.GRUSequence].
type RecurrentOptions struct {
	// ReturnSequences returns every step's h (batch, steps, units), in
	// the order processed; otherwise the last h (batch, units).
	ReturnSequences bool
	// GoBackwards processes the sequence from its last step (Keras's
	// go_backwards).
	GoBackwards bool
	// ReturnState also returns the final states; otherwise they are nil.
	ReturnState bool
}

// LSTMOps is an optional capability of an [Ops]: Keras's LSTM layer over
// a whole sequence as one op, forward and backward. An engine implements
// it only if it matches [LSTMReference] within the conformance
// tolerance; the checked Builder uses it when present and the reference
// (the unrolled loop) otherwise.
type LSTMOps interface {
	// LSTMSequence gets x (batch, steps, features), kernel (features,
	// 4·units), bias (4·units, or nil), recurrentKernel (units, 4·units)
	// and the initial h and c (batch, units).
	LSTMSequence(x, kernel, bias, recurrentKernel, h0, c0 Value, o RecurrentOptions) (out, h, c Value, err error)
}

// LSTMReference is Keras's LSTM layer written with Builder ops, one
// step's ops per time step (Keras 3's LSTMCell with a sigmoid recurrent
// activation and a tanh activation), gates in the kernel's column order
// input, forget, cell, output:
//
//	z = x_t·kernel + bias + h·recurrentKernel
//	c = σ(z_f)·c + σ(z_i)·tanh(z_c);  h = σ(z_o)·tanh(c)
//
// Each step's input projection is taken from its own slice of x: a
// slice's gradient is as large as what it slices, so slicing x (features
// wide) costs less than slicing one product for all steps (4·units
// wide), which the engines' slice gradients would allocate and add once
// per step.
func LSTMReference(b Builder, x, kernel, bias, recurrentKernel, h0, c0 Value, o RecurrentOptions) (out, h, c Value) {
	batch, units := x.Shape()[0], recurrentKernel.Shape()[0]
	gate := func(z Value, i int) Value { return b.Slice(z, []int{0, i * units}, []int{batch, units}) }
	h, c = h0, c0
	out = referenceLoop(b, x, kernel, bias, units, o, func(p Value) Value {
		z := b.Add(p, b.MatMul(h, recurrentKernel))
		in := b.Sigmoid(gate(z, 0))
		forget := b.Sigmoid(gate(z, 1))
		c = b.Add(b.Mul(forget, c), b.Mul(in, b.Tanh(gate(z, 2))))
		h = b.Mul(b.Sigmoid(gate(z, 3)), b.Tanh(c))
		return h
	})
	if !o.ReturnState {
		return out, nil, nil
	}
	return out, h, c
}

// referenceLoop is the loop of the recurrent references: step gets each
// time step's input projection x_t·kernel (+ bias), in the order o says,
// and returns that step's h. The result is every h (batch, steps, units)
// with o.ReturnSequences, else the last.
func referenceLoop(b Builder, x, kernel, bias Value, units int, o RecurrentOptions, step func(p Value) Value) Value {
	d := x.Shape()
	batch, steps, features := d[0], d[1], d[2]
	var h Value
	var outs []Value
	for i := range steps {
		t := i
		if o.GoBackwards {
			t = steps - 1 - i
		}
		xt := b.Reshape(b.Slice(x, []int{0, t, 0}, []int{batch, 1, features}), Shape{batch, features})
		p := b.MatMul(xt, kernel)
		if bias != nil {
			p = b.Add(p, bias)
		}
		h = step(p)
		if o.ReturnSequences {
			outs = append(outs, b.Reshape(h, Shape{batch, 1, units}))
		}
	}
	if !o.ReturnSequences {
		return h
	}
	if len(outs) == 1 {
		return outs[0]
	}
	return b.Concat(1, outs...)
}

func (c *checked) LSTMSequence(x, kernel, bias, recurrentKernel, h0, c0 Value, o RecurrentOptions) (Value, Value, Value) {
	if !c.recurrentArgs("LSTMSequence", 4, x, kernel, recurrentKernel, []Value{bias}, []Value{h0, c0}) {
		f := failed{shape: shapeOf(x), dtype: c.ops.DType()}
		return f, f, f
	}
	fused, ok := c.ops.(LSTMOps)
	if !ok {
		return LSTMReference(c, x, kernel, bias, recurrentKernel, h0, c0, o)
	}
	var h, cell Value
	out := c.call("LSTMSequence", recurrentOutput(x, recurrentKernel, o), func() (Value, error) {
		out, hv, cv, err := fused.LSTMSequence(x, kernel, bias, recurrentKernel, h0, c0, o)
		h, cell = hv, cv
		return out, err
	})
	if c.err != nil {
		return out, out, out
	}
	return out, h, cell
}

// recurrentArgs checks a recurrent op's arguments: x (batch, steps,
// features), kernel (features, gates·units), recurrentKernel (units,
// gates·units), each bias (gates·units) unless nil, each state (batch,
// units). It records the first problem and reports whether there was
// none.
func (c *checked) recurrentArgs(name string, gates int, x, kernel, recurrentKernel Value, biases, states []Value) bool {
	vs := append([]Value{x, kernel, recurrentKernel}, states...)
	for _, b := range biases {
		if b != nil {
			vs = append(vs, b)
		}
	}
	if !c.ok(vs...) {
		return false
	}
	xs, ks, rs := x.Shape(), kernel.Shape(), recurrentKernel.Shape()
	fail := func(format string, args ...any) bool {
		c.fail(xs, name+" needs "+format, args...)
		return false
	}
	if len(xs) != 3 || xs[1] < 1 {
		return fail("x of shape (batch, steps, features) with at least one step; got %v", xs)
	}
	if len(rs) != 2 || rs[1] != gates*rs[0] {
		return fail("a recurrent kernel of shape (units, %d·units); got %v", gates, rs)
	}
	units := rs[0]
	if want := (Shape{xs[2], gates * units}); !ks.Equal(want) {
		return fail("a kernel of shape (features, %d·units) = %v; got %v", gates, want, ks)
	}
	for _, b := range biases {
		if want := (Shape{gates * units}); b != nil && !b.Shape().Equal(want) {
			return fail("a bias of shape (%d·units) = %v; got %v", gates, want, b.Shape())
		}
	}
	for _, st := range states {
		if want := (Shape{xs[0], units}); !st.Shape().Equal(want) {
			return fail("initial states of shape (batch, units) = %v; got %v", want, st.Shape())
		}
	}
	return true
}

// recurrentOutput is the shape of a recurrent op's first result.
func recurrentOutput(x, recurrentKernel Value, o RecurrentOptions) Shape {
	xs, units := x.Shape(), recurrentKernel.Shape()[0]
	if o.ReturnSequences {
		return Shape{xs[0], xs[1], units}
	}
	return Shape{xs[0], units}
}
