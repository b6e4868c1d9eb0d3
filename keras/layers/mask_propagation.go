package layers

import "github.com/kerasgo/kerasgo/keras/backend"

// The layers that pass their input's mask on unchanged, as Keras's with
// supports_masking = True: they keep the steps of a sequence.

// ComputeMask passes the input's mask on.
func (*Dense) ComputeMask(_ *Context, _, m []backend.Value) backend.Value { return firstMask(m) }

// ComputeMask passes the input's mask on.
func (*Activation) ComputeMask(_ *Context, _, m []backend.Value) backend.Value { return firstMask(m) }

// ComputeMask passes the input's mask on.
func (*Dropout) ComputeMask(_ *Context, _, m []backend.Value) backend.Value { return firstMask(m) }

// ComputeMask passes the input's mask on.
func (*ReLU) ComputeMask(_ *Context, _, m []backend.Value) backend.Value { return firstMask(m) }

// ComputeMask passes the input's mask on.
func (*LeakyReLU) ComputeMask(_ *Context, _, m []backend.Value) backend.Value { return firstMask(m) }

// ComputeMask passes the input's mask on.
func (*PReLU) ComputeMask(_ *Context, _, m []backend.Value) backend.Value { return firstMask(m) }

// ComputeMask passes the input's mask on.
func (*ELU) ComputeMask(_ *Context, _, m []backend.Value) backend.Value { return firstMask(m) }

// ComputeMask passes the input's mask on.
func (*Softmax) ComputeMask(_ *Context, _, m []backend.Value) backend.Value { return firstMask(m) }

// ComputeMask passes the input's mask on.
func (*GaussianNoise) ComputeMask(_ *Context, _, m []backend.Value) backend.Value {
	return firstMask(m)
}

// ComputeMask passes the input's mask on.
func (*GaussianDropout) ComputeMask(_ *Context, _, m []backend.Value) backend.Value {
	return firstMask(m)
}

// ComputeMask passes the input's mask on.
func (*Rescaling) ComputeMask(_ *Context, _, m []backend.Value) backend.Value { return firstMask(m) }

// ComputeMask passes the input's mask on.
func (*Identity) ComputeMask(_ *Context, _, m []backend.Value) backend.Value { return firstMask(m) }

// ComputeMask passes the input's mask on.
func (*LayerNormalization) ComputeMask(_ *Context, _, m []backend.Value) backend.Value {
	return firstMask(m)
}

// ComputeMask passes the input's mask on.
func (*BatchNormalization) ComputeMask(_ *Context, _, m []backend.Value) backend.Value {
	return firstMask(m)
}

// ComputeMask is Keras's Merge.compute_mask: none if an input has none,
// else the steps that are data in any input.
func (*merge) ComputeMask(ctx *Context, _, m []backend.Value) backend.Value {
	return anyMask(ctx.B, m)
}

// ComputeMask is Keras's Concatenate.compute_mask: none if no input has
// a mask; an input without one counts as data everywhere. Joining
// features (the last axis), a step is data if it is in any input;
// joining steps (axis 1), the masks are joined too; along another axis
// of a longer input the mask is dropped.
func (l *Concatenate) ComputeMask(ctx *Context, in, m []backend.Value) backend.Value {
	var shape backend.Shape // a mask's
	for _, x := range m {
		if x != nil {
			shape = x.Shape()
		}
	}
	if shape == nil || len(in) != len(m) {
		return nil
	}
	b, rank := ctx.B, len(in[0].Shape())
	full := func(i int, s backend.Shape) backend.Value { // input i's mask, or data everywhere
		if m[i] != nil {
			return m[i]
		}
		return b.Constant(filledWith(1, s.Size()), s)
	}
	switch a := l.axis(); {
	case a == -1 || a == rank-1:
		var out backend.Value
		for i := range m {
			out = orMask(b, out, full(i, shape))
		}
		return out
	case a == 1 && rank == 3:
		ms := make([]backend.Value, len(m))
		for i := range m {
			ms[i] = full(i, in[i].Shape()[:2])
		}
		return b.Concat(1, ms...)
	}
	return nil
}

// ComputeMask passes the input's mask on.
func (*SpatialDropout1D) ComputeMask(_ *Context, _, m []backend.Value) backend.Value {
	return firstMask(m)
}
