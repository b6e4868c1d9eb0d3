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

// ComputeMask keeps the steps that are data in every masked input.
func (*merge) ComputeMask(ctx *Context, _, m []backend.Value) backend.Value {
	return allMasks(ctx.B, m)
}

// ComputeMask keeps, when joining features (the last axis), the steps
// that are data in every masked input; joined along another axis the
// mask is dropped.
func (l *Concatenate) ComputeMask(ctx *Context, in, m []backend.Value) backend.Value {
	if a := l.axis(); a == -1 || (len(in) > 0 && a == len(in[0].Shape())-1) {
		return allMasks(ctx.B, m)
	}
	return nil
}
