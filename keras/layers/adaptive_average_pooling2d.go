package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// AdaptiveAveragePooling2D is keras.layers.AdaptiveAveragePooling2D: averages an image's rows and columns to OutputSize along the height and width
// whatever the input's length there (see adaptive_pooling.go).
type AdaptiveAveragePooling2D struct {
	OutputSize [2]int
	Base
}

// ClassName returns "AdaptiveAveragePooling2D".
func (*AdaptiveAveragePooling2D) ClassName() string { return "AdaptiveAveragePooling2D" }

// Build checks the input and the size.
func (l *AdaptiveAveragePooling2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return adaptiveShape(inputs, l.OutputSize[:])
}

// Call pools.
func (l *AdaptiveAveragePooling2D) Call(ctx *Context, in []backend.Value) backend.Value {
	return ops.AdaptiveAveragePool(ctx.B, in[0], l.OutputSize[:])
}

// GetConfig returns Keras's config.
func (l *AdaptiveAveragePooling2D) GetConfig() (serialization.Config, error) {
	return adaptiveConfig(l.OutputSize[:]), nil
}

func init() {
	mustRegister("AdaptiveAveragePooling2D", func(r *serialization.Reader) (Layer, error) {
		l := &AdaptiveAveragePooling2D{}
		copy(l.OutputSize[:], readOutputSize(r, 2))
		return l, nil
	})
}
