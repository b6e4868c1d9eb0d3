package layers

import "github.com/kerasgo/kerasgo/keras/backend"

// Maximum takes the elementwise maximum of its inputs, like
// keras.layers.Maximum. With masks, an input's padding steps never win
// (Keras's _apply_merge_op_and_or_mask).
type Maximum struct{ merge }

// ClassName returns "Maximum".
func (*Maximum) ClassName() string { return "Maximum" }

// Call takes the maximum.
func (m *Maximum) Call(ctx *Context, in []backend.Value) backend.Value {
	return m.foldMasked(ctx, in, backend.Builder.Maximum)
}
