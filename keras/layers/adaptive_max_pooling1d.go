package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// AdaptiveMaxPooling1D is keras.layers.AdaptiveMaxPooling1D: takes the maximum of a sequence's steps to OutputSize along the steps
// whatever the input's length there (see adaptive_pooling.go).
type AdaptiveMaxPooling1D struct {
	OutputSize [1]int
	Base
}

// ClassName returns "AdaptiveMaxPooling1D".
func (*AdaptiveMaxPooling1D) ClassName() string { return "AdaptiveMaxPooling1D" }

// Build checks the input and the size.
func (l *AdaptiveMaxPooling1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return adaptiveShape(inputs, l.OutputSize[:])
}

// Call pools.
func (l *AdaptiveMaxPooling1D) Call(ctx *Context, in []backend.Value) backend.Value {
	return ops.AdaptiveMaxPool(ctx.B, in[0], l.OutputSize[:])
}

// GetConfig returns Keras's config.
func (l *AdaptiveMaxPooling1D) GetConfig() (serialization.Config, error) {
	return adaptiveConfig(l.OutputSize[:]), nil
}

func init() {
	mustRegister("AdaptiveMaxPooling1D", func(r *serialization.Reader) (Layer, error) {
		l := &AdaptiveMaxPooling1D{}
		copy(l.OutputSize[:], readOutputSize(r, 1))
		return l, nil
	})
}
