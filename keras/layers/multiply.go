package layers

import "github.com/kerasgo/kerasgo/keras/backend"

// Multiply multiplies its inputs element by element, like
// keras.layers.Multiply.
type Multiply struct{ merge }

// ClassName returns "Multiply".
func (*Multiply) ClassName() string { return "Multiply" }

// Call multiplies the inputs.
func (m *Multiply) Call(ctx *Context, in []backend.Value) backend.Value {
	return m.fold(ctx, in, backend.Builder.Mul)
}
