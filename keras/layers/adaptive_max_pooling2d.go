package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// AdaptiveMaxPooling2D is keras.layers.AdaptiveMaxPooling2D: takes the maximum of an image's rows and columns to OutputSize along the height and width
// whatever the input's length there (see adaptive_pooling.go).
type AdaptiveMaxPooling2D struct {
	OutputSize [2]int
	Base
}

// ClassName returns "AdaptiveMaxPooling2D".
func (*AdaptiveMaxPooling2D) ClassName() string { return "AdaptiveMaxPooling2D" }

// Build checks the input and the size.
func (l *AdaptiveMaxPooling2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return adaptiveShape(inputs, l.OutputSize[:])
}

// Call pools.
func (l *AdaptiveMaxPooling2D) Call(ctx *Context, in []backend.Value) backend.Value {
	return ops.AdaptiveMaxPool(ctx.B, in[0], l.OutputSize[:])
}

// GetConfig returns Keras's config.
func (l *AdaptiveMaxPooling2D) GetConfig() (serialization.Config, error) {
	return adaptiveConfig(l.OutputSize[:]), nil
}

func init() {
	mustRegister("AdaptiveMaxPooling2D", func(r *serialization.Reader) (Layer, error) {
		l := &AdaptiveMaxPooling2D{}
		copy(l.OutputSize[:], readOutputSize(r, 2))
		return l, nil
	})
}
