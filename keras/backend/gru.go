package backend

// GRUOps is an optional capability of an [Ops]: Keras's GRU layer
// (reset_after=True, its default) over a whole sequence as one op,
// forward and backward. An engine implements it only if it matches
// [GRUReference] within the conformance tolerance; the checked Builder
// uses it when present and the reference (the unrolled loop) otherwise.
type GRUOps interface {
	// GRUSequence gets x (batch, steps, features), kernel (features,
	// 3·units), inputBias and recurrentBias (3·units, or nil),
	// recurrentKernel (units, 3·units) and the initial state (batch,
	// units).
	GRUSequence(x, kernel, inputBias, recurrentKernel, recurrentBias, h0 Value, o RecurrentOptions) (out, h Value, err error)
}

// GRUReference is Keras's GRU layer with reset_after=True written with
// Builder ops, one step's ops per time step (Keras 3's GRUCell with a
// sigmoid recurrent activation and a tanh activation), gates in the
// kernel's column order update, reset, candidate:
//
//	p = x_t·kernel + inputBias;  m = h·recurrentKernel + recurrentBias
//	z = σ(p_z + m_z);  r = σ(p_r + m_r);  hh = tanh(p_h + r·m_h)
//	h = z·h + (1-z)·hh
//
// As in [LSTMReference], each step's input projection comes from its own
// slice of x.
func GRUReference(b Builder, x, kernel, inputBias, recurrentKernel, recurrentBias, h0 Value, o RecurrentOptions) (out, h Value) {
	batch, units := x.Shape()[0], recurrentKernel.Shape()[0]
	gate := func(z Value, i int) Value { return b.Slice(z, []int{0, i * units}, []int{batch, units}) }
	h = h0
	out = referenceLoop(b, x, kernel, inputBias, units, o, func(p Value) Value {
		m := b.MatMul(h, recurrentKernel)
		if recurrentBias != nil {
			m = b.Add(m, recurrentBias)
		}
		z := b.Sigmoid(b.Add(gate(p, 0), gate(m, 0)))
		reset := b.Sigmoid(b.Add(gate(p, 1), gate(m, 1)))
		hh := b.Tanh(b.Add(gate(p, 2), b.Mul(reset, gate(m, 2))))
		// h = z*h + (1-z)*hh = hh + z*(h-hh)
		h = b.Add(hh, b.Mul(z, b.Sub(h, hh)))
		return h
	})
	if !o.ReturnState {
		return out, nil
	}
	return out, h
}

func (c *checked) GRUSequence(x, kernel, inputBias, recurrentKernel, recurrentBias, h0 Value, o RecurrentOptions) (Value, Value) {
	if !c.recurrentArgs("GRUSequence", 3, x, kernel, recurrentKernel, []Value{inputBias, recurrentBias}, []Value{h0}) {
		f := failed{shape: shapeOf(x), dtype: c.ops.DType()}
		return f, f
	}
	fused, ok := c.ops.(GRUOps)
	if !ok {
		return GRUReference(c, x, kernel, inputBias, recurrentKernel, recurrentBias, h0, o)
	}
	var h Value
	out := c.call("GRUSequence", recurrentOutput(x, recurrentKernel, o), func() (Value, error) {
		out, hv, err := fused.GRUSequence(x, kernel, inputBias, recurrentKernel, recurrentBias, h0, o)
		h = hv
		return out, err
	})
	if c.err != nil {
		return out, out
	}
	return out, h
}
