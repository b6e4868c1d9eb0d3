package layers

import "github.com/kerasgo/kerasgo/keras/backend"

// Subtract subtracts its second input from its first, like
// keras.layers.Subtract.
type Subtract struct{ merge }

// ClassName returns "Subtract".
func (*Subtract) ClassName() string { return "Subtract" }

// Build checks for exactly two inputs that broadcast together.
func (m *Subtract) Build(inputs []backend.Shape) (backend.Shape, error) {
	return broadcastMerge(inputs, 2)
}

// Call subtracts.
func (m *Subtract) Call(ctx *Context, in []backend.Value) backend.Value {
	return ctx.B.Sub(in[0], in[1])
}
