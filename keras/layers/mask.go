package layers

import (
	"fmt"
	"reflect"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Masks, as Keras's: a mask marks which steps of a sequence (batch,
// steps, ...) hold data (1) and which are padding (0); its shape is
// (batch, steps). A layer that makes one (Embedding with MaskZero,
// Masking) or passes one on (Dense, Dropout, the merge layers, ...)
// implements Masker; the model's executor hands each layer the masks of
// its inputs (Context.Mask) and asks it for its output's. Layers that
// use masks: LSTM, GRU, SimpleRNN and Bidirectional (a masked step
// leaves the state and the output as they were), GlobalAveragePooling1D
// (averages the data steps) and MultiHeadAttention (attends to data
// steps only). Any other layer drops the mask, as a Keras layer without
// supports_masking does.

// Masker is implemented by layers that make or pass on a mask.
type Masker interface {
	// ComputeMask returns the mask of the layer's output, given its inputs
	// and their masks (nil where an input has none); nil means none.
	ComputeMask(ctx *Context, inputs, masks []backend.Value) backend.Value
}

// Mask returns the mask of the layer's input i in this call, or nil.
func (ctx *Context) Mask(i int) backend.Value {
	if i < len(ctx.masks) {
		return ctx.masks[i]
	}
	return nil
}

// KerasMask returns the mask a value carries in this computation, or
// nil: Keras's keras.backend.get_keras_mask(x). A model's outputs carry
// the mask their last layer computed (Masker), which the compiled loss and
// metrics apply; a custom step reads it with Step.Mask.
func (ctx *Context) KerasMask(v backend.Value) backend.Value {
	if !maskable(v) {
		return nil
	}
	return ctx.kerasMasks[v]
}

// maskable reports whether v can carry a mask: a value that can key a
// map (an engine's values can; a placeholder for a failed op may not).
func maskable(v backend.Value) bool {
	return v != nil && reflect.ValueOf(v).Comparable()
}

// SetKerasMask makes mask (batch, steps; nil: none) the mask v carries
// in this computation, Keras's keras.backend.set_keras_mask(x, mask). A
// layer that computes its output's mask inside Call (a layer holding a
// masked model) sets it so; the model then passes it on as a Masker's.
func (ctx *Context) SetKerasMask(v, mask backend.Value) {
	if !maskable(v) || ctx.kerasMasks == nil {
		return
	}
	if mask == nil {
		delete(ctx.kerasMasks, v)
		return
	}
	ctx.kerasMasks[v] = mask
}

// WithMasks returns a copy of ctx whose calls see these input masks.
func (ctx *Context) WithMasks(masks []backend.Value) *Context {
	c := *ctx
	c.masks = masks
	return &c
}

// firstMask is what layers that keep the steps do with a mask: pass the
// first input's on (Keras's supports_masking).
func firstMask(masks []backend.Value) backend.Value {
	if len(masks) == 0 {
		return nil
	}
	return masks[0]
}

// anyMask is the elementwise merge layers' mask (Keras's
// Merge.compute_mask): none if an input has none, else a step is data if
// it is data in any input.
func anyMask(b backend.Builder, masks []backend.Value) backend.Value {
	var out backend.Value
	for _, m := range masks {
		if m == nil {
			return nil
		}
		out = orMask(b, out, m)
	}
	return out
}

// orMask is a or m (0/1 masks), m when a is nil.
func orMask(b backend.Builder, a, m backend.Value) backend.Value {
	if a == nil {
		return m
	}
	return b.Maximum(a, m)
}

// stepsMask is mask (batch, steps) shaped to broadcast over x (batch,
// steps, features...), or nil without a mask.
func stepsMask(b backend.Builder, mask, x backend.Value) backend.Value {
	if mask == nil {
		return nil
	}
	s := mask.Shape().Clone()
	for len(s) < len(x.Shape()) {
		s = append(s, 1)
	}
	return b.Reshape(mask, s)
}

// stepMask returns step t's mask as (batch, 1), to scale (batch, units)
// values.
func stepMask(b backend.Builder, mask backend.Value, t int) backend.Value {
	return b.Slice(mask, []int{0, t}, []int{mask.Shape()[0], 1})
}

// keep returns m*next + (1-m)*prev: next where the step is data, prev
// where it is padding.
func keep(b backend.Builder, m, next, prev backend.Value) backend.Value {
	return b.Add(prev, b.Mul(m, b.Sub(next, prev)))
}

// Masking marks the steps whose features all equal MaskValue as padding
// and zeroes them, like keras.layers.Masking: input (batch, steps,
// features).
type Masking struct {
	MaskValue float64
	Base
}

// ClassName returns "Masking".
func (*Masking) ClassName() string { return "Masking" }

// Build checks the input.
func (l *Masking) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) < 3 {
		return nil, fmt.Errorf("expected an input of shape (batch, steps, features), received %v", in)
	}
	return in.Clone(), nil
}

func (l *Masking) mask(b backend.Builder, x backend.Value) backend.Value {
	s := x.Shape()
	axes := make([]int, 0, len(s)-2)
	for a := 2; a < len(s); a++ {
		axes = append(axes, a)
	}
	return b.Greater(b.Sum(b.Square(b.Sub(x, b.Scalar(l.MaskValue))), axes...), b.Scalar(0))
}

// Call zeroes the padding steps.
func (l *Masking) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	s := x.Shape()
	shape := backend.Shape{s[0], s[1]}
	for range s[2:] {
		shape = append(shape, 1)
	}
	return b.Mul(x, b.Reshape(l.mask(b, x), shape))
}

// ComputeMask marks the steps that are not all MaskValue.
func (l *Masking) ComputeMask(ctx *Context, in, _ []backend.Value) backend.Value {
	return l.mask(ctx.B, in[0])
}

// GetConfig returns Keras's config.
func (l *Masking) GetConfig() (serialization.Config, error) {
	return serialization.Config{"mask_value": l.MaskValue}, nil
}

func (*Masking) withoutBuildConfig() {}

func init() {
	mustRegister("Masking", func(r *serialization.Reader) (Layer, error) {
		return &Masking{MaskValue: r.Float("mask_value", 0)}, nil
	})
}

func (*Masking) takesUnknownDims() {}
