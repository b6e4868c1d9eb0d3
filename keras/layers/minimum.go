package layers

import "github.com/kerasgo/kerasgo/keras/backend"

// Minimum takes the elementwise minimum of its inputs, like
// keras.layers.Minimum. With masks, an input's padding steps never win
// (Keras's _apply_merge_op_and_or_mask).
type Minimum struct{ merge }

// ClassName returns "Minimum".
func (*Minimum) ClassName() string { return "Minimum" }

// Call takes the minimum.
func (m *Minimum) Call(ctx *Context, in []backend.Value) backend.Value {
	return m.foldMasked(ctx, in, backend.Builder.Minimum)
}
