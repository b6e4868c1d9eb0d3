package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// GlobalAveragePooling3D averages channels_last volumes over their depth,
// rows and columns, (batch, depth, rows, cols, channels) -> (batch,
// channels), like keras.layers.GlobalAveragePooling3D.
type GlobalAveragePooling3D struct {
	Base
	// KeepDims keeps the depth, rows and columns as dimensions of size 1,
	// (batch, 1, 1, 1, channels) (Keras's keepdims).
	KeepDims bool
}

// ClassName returns "GlobalAveragePooling3D".
func (*GlobalAveragePooling3D) ClassName() string { return "GlobalAveragePooling3D" }

// Build returns (batch, channels), or (batch, 1, 1, 1, channels) with
// KeepDims.
func (l *GlobalAveragePooling3D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return globalPoolShapeOf(inputs, 3, l.KeepDims)
}

// Call reduces over axes 1 to 3.
func (l *GlobalAveragePooling3D) Call(ctx *Context, in []backend.Value) backend.Value {
	return globalPool3D(ctx.B, in[0], l.KeepDims, ops.Mean)
}

// GetConfig returns Keras's config.
func (l *GlobalAveragePooling3D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"data_format": "channels_last", "keepdims": l.KeepDims}, nil
}

func (*GlobalAveragePooling3D) withoutBuildConfig() {}

// takesUnknownDims: GlobalAveragePooling3D reads the lengths it reduces from its input.
func (*GlobalAveragePooling3D) takesUnknownDims() {}

func init() {
	mustRegister("GlobalAveragePooling3D", func(r *serialization.Reader) (Layer, error) {
		return &GlobalAveragePooling3D{KeepDims: readGlobalPool(r)}, nil
	})
}
