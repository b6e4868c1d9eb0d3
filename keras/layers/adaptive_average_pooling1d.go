package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// AdaptiveAveragePooling1D is keras.layers.AdaptiveAveragePooling1D: averages a sequence's steps to OutputSize along the steps
// whatever the input's length there (see adaptive_pooling.go).
type AdaptiveAveragePooling1D struct {
	OutputSize [1]int
	Base
}

// ClassName returns "AdaptiveAveragePooling1D".
func (*AdaptiveAveragePooling1D) ClassName() string { return "AdaptiveAveragePooling1D" }

// Build checks the input and the size.
func (l *AdaptiveAveragePooling1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return adaptiveShape(inputs, l.OutputSize[:])
}

// Call pools.
func (l *AdaptiveAveragePooling1D) Call(ctx *Context, in []backend.Value) backend.Value {
	return ops.AdaptiveAveragePool(ctx.B, in[0], l.OutputSize[:])
}

// GetConfig returns Keras's config.
func (l *AdaptiveAveragePooling1D) GetConfig() (serialization.Config, error) {
	return adaptiveConfig(l.OutputSize[:]), nil
}

func init() {
	mustRegister("AdaptiveAveragePooling1D", func(r *serialization.Reader) (Layer, error) {
		l := &AdaptiveAveragePooling1D{}
		copy(l.OutputSize[:], readOutputSize(r, 1))
		return l, nil
	})
}
