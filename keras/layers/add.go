package layers

import "github.com/kerasgo/kerasgo/keras/backend"

// Add sums its inputs, like keras.layers.Add (a residual connection):
// layers.Apply(&layers.Add{}, x, shortcut).
type Add struct{ merge }

// ClassName returns "Add".
func (*Add) ClassName() string { return "Add" }

// Call adds the inputs.
func (m *Add) Call(ctx *Context, in []backend.Value) backend.Value {
	return m.fold(ctx, in, backend.Builder.Add)
}
