package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// GlobalMaxPooling2D takes the maximum of channels_last input over its
// rows and columns, (batch, rows, cols, channels) -> (batch, channels),
// like keras.layers.GlobalMaxPooling2D.
type GlobalMaxPooling2D struct {
	Base
	// KeepDims keeps the rows and columns as dimensions of size 1,
	// (batch, 1, 1, channels) (Keras's keepdims).
	KeepDims bool
}

// ClassName returns "GlobalMaxPooling2D".
func (*GlobalMaxPooling2D) ClassName() string { return "GlobalMaxPooling2D" }

// Build returns (batch, channels), or (batch, 1, 1, channels) with
// KeepDims.
func (l *GlobalMaxPooling2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return globalPoolShape(inputs, l.KeepDims)
}

// Call max-pools with one window covering the whole image.
func (l *GlobalMaxPooling2D) Call(ctx *Context, in []backend.Value) backend.Value {
	s := in[0].Shape()
	y := ctx.B.MaxPool2D(in[0], backend.PoolOptions{Size: [2]int{s[1], s[2]}, Strides: [2]int{s[1], s[2]}, Padding: backend.Valid})
	if l.KeepDims {
		return y // (batch, 1, 1, channels) already
	}
	return ctx.B.Reshape(y, backend.Shape{s[0], s[3]})
}

// GetConfig returns Keras's config.
func (l *GlobalMaxPooling2D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"data_format": "channels_last", "keepdims": l.KeepDims}, nil
}

func (l *GlobalMaxPooling2D) withoutBuildConfig() {}

// takesUnknownDims: GlobalMaxPooling2D reads lengths other than its features from its input.
func (*GlobalMaxPooling2D) takesUnknownDims() {}

func init() {
	mustRegister("GlobalMaxPooling2D", func(r *serialization.Reader) (Layer, error) {
		return &GlobalMaxPooling2D{KeepDims: readGlobalPool(r)}, nil
	})
}
