package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// merge is the shared part of Keras's elementwise merge layers (Add,
// Subtract, Multiply, Average, Maximum, Minimum): two or more inputs of
// one shape, combined element by element.
type merge struct {
	Base
}

// Build checks that there are two or more inputs whose shapes broadcast
// together.
func (m *merge) Build(inputs []backend.Shape) (backend.Shape, error) {
	return broadcastMerge(inputs, 0)
}

// broadcastMerge checks the inputs of an elementwise merge, as Keras's
// Merge layer does: exactly n of them (0: two or more), one batch size,
// and the other axes broadcasting together (such as images (h, w, c) and
// per-channel weights (1, 1, c) in EfficientNet's squeeze and
// excitation). An axis of unknown length (-1) leaves the output's
// unknown, as Keras's None does. Unlike Keras, inputs of different ranks
// are refused rather than expanded after the batch axis.
func broadcastMerge(inputs []backend.Shape, n int) (backend.Shape, error) {
	switch {
	case n > 0 && len(inputs) != n:
		return nil, fmt.Errorf("expects exactly %d inputs, received %d", n, len(inputs))
	case len(inputs) < 2:
		return nil, fmt.Errorf("expects at least 2 inputs, received %d", len(inputs))
	}
	out := inputs[0].Clone()
	for i, s := range inputs[1:] {
		if len(s) != len(out) {
			return nil, fmt.Errorf("inputs must have the same rank: input 0 has %v, input %d has %v (Reshape one, e.g. to (1, 1, channels))", inputs[0], i+1, s)
		}
		if len(out) == 0 || (out[0] >= 0 && s[0] >= 0 && out[0] != s[0]) {
			return nil, fmt.Errorf("inputs must have the same batch size: input 0 has %v, input %d has %v", inputs[0], i+1, s)
		}
		next := out.Clone()
		if next[0] < 0 {
			next[0] = s[0]
		}
		for k := 1; k < len(s); k++ {
			switch da, db := next[k], s[k]; {
			case da < 0 || db < 0:
				next[k] = -1
			case da == 1:
				next[k] = db
			case db == 1 || da == db:
			default:
				return nil, fmt.Errorf("inputs must have the same shape or broadcast together: input 0 has %v, input %d has %v", inputs[0], i+1, s)
			}
		}
		out = next
	}
	return out, nil
}

func (*merge) takesUnknownDims() {}

// GetConfig returns Keras's config of a merge layer (no settings).
func (m *merge) GetConfig() (serialization.Config, error) { return serialization.Config{}, nil }

func (m *merge) fold(ctx *Context, in []backend.Value, f func(b backend.Builder, x, y backend.Value) backend.Value) backend.Value {
	out := in[0]
	for _, x := range in[1:] {
		out = f(ctx.B, out, x)
	}
	return out
}

// foldMasked is fold as Keras's _apply_merge_op_and_or_mask (Maximum,
// Minimum): where an input is padding it takes the result so far, and
// where the result so far is padding it takes the input, so a padding
// step never wins over data.
func (m *merge) foldMasked(ctx *Context, in []backend.Value, f func(b backend.Builder, x, y backend.Value) backend.Value) backend.Value {
	b := ctx.B
	out := in[0]
	outMask := stepsMask(b, ctx.Mask(0), out)
	for i, x := range in[1:] {
		mk := stepsMask(b, ctx.Mask(i+1), x)
		if mk != nil {
			x = b.Where(mk, x, out)
		}
		if outMask != nil {
			out = b.Where(outMask, out, x)
		}
		if mk != nil && outMask != nil {
			outMask = orMask(b, outMask, mk)
		} else {
			outMask = nil
		}
		out = f(b, out, x)
	}
	return out
}

func init() {
	for class, newLayer := range map[string]func() Layer{
		"Add": func() Layer { return &Add{} }, "Subtract": func() Layer { return &Subtract{} },
		"Multiply": func() Layer { return &Multiply{} }, "Average": func() Layer { return &Average{} },
		"Maximum": func() Layer { return &Maximum{} }, "Minimum": func() Layer { return &Minimum{} },
	} {
		mustRegister(class, func(*serialization.Reader) (Layer, error) { return newLayer(), nil })
	}
}
