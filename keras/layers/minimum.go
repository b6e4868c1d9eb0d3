package layers

import "github.com/kerasgo/kerasgo/keras/backend"

// Minimum takes the elementwise minimum of its inputs, like
// keras.layers.Minimum.
type Minimum struct{ merge }

// ClassName returns "Minimum".
func (*Minimum) ClassName() string { return "Minimum" }

// Call takes the minimum.
func (m *Minimum) Call(ctx *Context, in []backend.Value) backend.Value {
	return m.fold(ctx, in, backend.Builder.Minimum)
}
