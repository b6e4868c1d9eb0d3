package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// AdaptiveMaxPooling3D is keras.layers.AdaptiveMaxPooling3D: takes the maximum of volumes down to
// OutputSize along the depth, height and width, whatever the input's
// lengths there (see adaptive_pooling.go).
type AdaptiveMaxPooling3D struct {
	OutputSize [3]int
	Base
}

// ClassName returns "AdaptiveMaxPooling3D".
func (*AdaptiveMaxPooling3D) ClassName() string { return "AdaptiveMaxPooling3D" }

// Build checks the input and the size.
func (l *AdaptiveMaxPooling3D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return adaptiveShape(inputs, l.OutputSize[:])
}

// Call pools.
func (l *AdaptiveMaxPooling3D) Call(ctx *Context, in []backend.Value) backend.Value {
	return ops.AdaptiveMaxPool(ctx.B, in[0], l.OutputSize[:])
}

// GetConfig returns Keras's config.
func (l *AdaptiveMaxPooling3D) GetConfig() (serialization.Config, error) {
	return adaptiveConfig(l.OutputSize[:]), nil
}

func init() {
	mustRegister("AdaptiveMaxPooling3D", func(r *serialization.Reader) (Layer, error) {
		l := &AdaptiveMaxPooling3D{}
		copy(l.OutputSize[:], readOutputSize(r, 3))
		return l, nil
	})
}
