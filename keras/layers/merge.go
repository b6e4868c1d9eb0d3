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

// Build checks that there are two or more inputs of one shape.
func (m *merge) Build(inputs []backend.Shape) (backend.Shape, error) {
	return sameShapes(inputs, 0)
}

// sameShapes checks merge inputs: exactly n of them (0: two or more), of
// one shape.
func sameShapes(inputs []backend.Shape, n int) (backend.Shape, error) {
	switch {
	case n > 0 && len(inputs) != n:
		return nil, fmt.Errorf("expects exactly %d inputs, received %d", n, len(inputs))
	case len(inputs) < 2:
		return nil, fmt.Errorf("expects at least 2 inputs, received %d", len(inputs))
	}
	for i, s := range inputs[1:] {
		if !s.Equal(inputs[0]) {
			return nil, fmt.Errorf("inputs must have the same shape: input 0 has %v, input %d has %v", inputs[0], i+1, s)
		}
	}
	return inputs[0].Clone(), nil
}

// GetConfig returns Keras's config of a merge layer (no settings).
func (m *merge) GetConfig() (serialization.Config, error) { return serialization.Config{}, nil }

func (m *merge) fold(ctx *Context, in []backend.Value, f func(b backend.Builder, x, y backend.Value) backend.Value) backend.Value {
	out := in[0]
	for _, x := range in[1:] {
		out = f(ctx.B, out, x)
	}
	return out
}

// Add sums its inputs, like keras.layers.Add (a residual connection):
// layers.Apply(&layers.Add{}, x, shortcut).
type Add struct{ merge }

// ClassName returns "Add".
func (*Add) ClassName() string { return "Add" }

// Call adds the inputs.
func (m *Add) Call(ctx *Context, in []backend.Value) backend.Value {
	return m.fold(ctx, in, backend.Builder.Add)
}

// Subtract subtracts its second input from its first, like
// keras.layers.Subtract.
type Subtract struct{ merge }

// ClassName returns "Subtract".
func (*Subtract) ClassName() string { return "Subtract" }

// Build checks for exactly two inputs of one shape.
func (m *Subtract) Build(inputs []backend.Shape) (backend.Shape, error) { return sameShapes(inputs, 2) }

// Call subtracts.
func (m *Subtract) Call(ctx *Context, in []backend.Value) backend.Value {
	return ctx.B.Sub(in[0], in[1])
}

// Multiply multiplies its inputs element by element, like
// keras.layers.Multiply.
type Multiply struct{ merge }

// ClassName returns "Multiply".
func (*Multiply) ClassName() string { return "Multiply" }

// Call multiplies the inputs.
func (m *Multiply) Call(ctx *Context, in []backend.Value) backend.Value {
	return m.fold(ctx, in, backend.Builder.Mul)
}

// Average averages its inputs, like keras.layers.Average.
type Average struct{ merge }

// ClassName returns "Average".
func (*Average) ClassName() string { return "Average" }

// Call averages the inputs.
func (m *Average) Call(ctx *Context, in []backend.Value) backend.Value {
	return ctx.B.Mul(m.fold(ctx, in, backend.Builder.Add), ctx.B.Scalar(1/float64(len(in))))
}

// Maximum takes the elementwise maximum of its inputs, like
// keras.layers.Maximum.
type Maximum struct{ merge }

// ClassName returns "Maximum".
func (*Maximum) ClassName() string { return "Maximum" }

// Call takes the maximum.
func (m *Maximum) Call(ctx *Context, in []backend.Value) backend.Value {
	return m.fold(ctx, in, backend.Builder.Maximum)
}

// Minimum takes the elementwise minimum of its inputs, like
// keras.layers.Minimum.
type Minimum struct{ merge }

// ClassName returns "Minimum".
func (*Minimum) ClassName() string { return "Minimum" }

// Call takes the minimum.
func (m *Minimum) Call(ctx *Context, in []backend.Value) backend.Value {
	return m.fold(ctx, in, backend.Builder.Minimum)
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
