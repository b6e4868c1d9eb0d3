package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// AdaptiveAveragePooling3D is keras.layers.AdaptiveAveragePooling3D: averages volumes down to
// OutputSize along the depth, height and width, whatever the input's
// lengths there (see adaptive_pooling.go).
type AdaptiveAveragePooling3D struct {
	OutputSize [3]int
	Base
}

// ClassName returns "AdaptiveAveragePooling3D".
func (*AdaptiveAveragePooling3D) ClassName() string { return "AdaptiveAveragePooling3D" }

// Build checks the input and the size.
func (l *AdaptiveAveragePooling3D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return adaptiveShape(inputs, l.OutputSize[:])
}

// Call pools.
func (l *AdaptiveAveragePooling3D) Call(ctx *Context, in []backend.Value) backend.Value {
	return ops.AdaptiveAveragePool(ctx.B, in[0], l.OutputSize[:])
}

// GetConfig returns Keras's config.
func (l *AdaptiveAveragePooling3D) GetConfig() (serialization.Config, error) {
	return adaptiveConfig(l.OutputSize[:]), nil
}

func init() {
	mustRegister("AdaptiveAveragePooling3D", func(r *serialization.Reader) (Layer, error) {
		l := &AdaptiveAveragePooling3D{}
		copy(l.OutputSize[:], readOutputSize(r, 3))
		return l, nil
	})
}
