package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// GlobalAveragePooling2D averages channels_last input over its rows and
// columns, (batch, rows, cols, channels) -> (batch, channels), like
// keras.layers.GlobalAveragePooling2D.
type GlobalAveragePooling2D struct {
	Base
	// KeepDims keeps the rows and columns as dimensions of size 1,
	// (batch, 1, 1, channels) (Keras's keepdims).
	KeepDims bool
}

// ClassName returns "GlobalAveragePooling2D".
func (*GlobalAveragePooling2D) ClassName() string { return "GlobalAveragePooling2D" }

// Build returns (batch, channels), or (batch, 1, 1, channels) with
// KeepDims.
func (l *GlobalAveragePooling2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return globalPoolShape(inputs, l.KeepDims)
}

// Call averages over axes 1 and 2.
func (l *GlobalAveragePooling2D) Call(ctx *Context, in []backend.Value) backend.Value {
	y := ctx.B.Mean(in[0], 1, 2)
	if l.KeepDims {
		s := in[0].Shape()
		y = ctx.B.Reshape(y, backend.Shape{s[0], 1, 1, s[3]})
	}
	return y
}

// GetConfig returns Keras's config.
func (l *GlobalAveragePooling2D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"data_format": "channels_last", "keepdims": l.KeepDims}, nil
}

func (l *GlobalAveragePooling2D) withoutBuildConfig() {}

// takesUnknownDims: GlobalAveragePooling2D reads lengths other than its features from its input.
func (*GlobalAveragePooling2D) takesUnknownDims() {}

func init() {
	mustRegister("GlobalAveragePooling2D", func(r *serialization.Reader) (Layer, error) {
		return &GlobalAveragePooling2D{KeepDims: readGlobalPool(r)}, nil
	})
}
