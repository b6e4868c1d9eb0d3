package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// GlobalAveragePooling2D averages channels_last input over its rows and
// columns, (batch, rows, cols, channels) -> (batch, channels), like
// keras.layers.GlobalAveragePooling2D.
type GlobalAveragePooling2D struct {
	Base
}

// ClassName returns "GlobalAveragePooling2D".
func (*GlobalAveragePooling2D) ClassName() string { return "GlobalAveragePooling2D" }

// Build returns (batch, channels).
func (l *GlobalAveragePooling2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return globalPoolShape(inputs)
}

// Call averages over axes 1 and 2.
func (l *GlobalAveragePooling2D) Call(ctx *Context, in []backend.Value) backend.Value {
	return ctx.B.Mean(in[0], 1, 2)
}

// GetConfig returns Keras's config.
func (l *GlobalAveragePooling2D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"data_format": "channels_last", "keepdims": false}, nil
}

func (l *GlobalAveragePooling2D) withoutBuildConfig() {}

// GlobalMaxPooling2D takes the maximum of channels_last input over its
// rows and columns, (batch, rows, cols, channels) -> (batch, channels),
// like keras.layers.GlobalMaxPooling2D.
type GlobalMaxPooling2D struct {
	Base
}

// ClassName returns "GlobalMaxPooling2D".
func (*GlobalMaxPooling2D) ClassName() string { return "GlobalMaxPooling2D" }

// Build returns (batch, channels).
func (l *GlobalMaxPooling2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return globalPoolShape(inputs)
}

// Call max-pools with one window covering the whole image.
func (l *GlobalMaxPooling2D) Call(ctx *Context, in []backend.Value) backend.Value {
	s := in[0].Shape()
	y := ctx.B.MaxPool2D(in[0], backend.PoolOptions{Size: [2]int{s[1], s[2]}, Strides: [2]int{s[1], s[2]}, Padding: backend.Valid})
	return ctx.B.Reshape(y, backend.Shape{s[0], s[3]})
}

// GetConfig returns Keras's config.
func (l *GlobalMaxPooling2D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"data_format": "channels_last", "keepdims": false}, nil
}

func (l *GlobalMaxPooling2D) withoutBuildConfig() {}

func globalPoolShape(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) != 4 || in[1] == 0 || in[2] == 0 || in[3] <= 0 { // rows and cols may be -1: any size
		return nil, fmt.Errorf("expected an input of shape (batch, rows, cols, channels), received %v", in)
	}
	return backend.Shape{in[0], in[3]}, nil
}

func readGlobalPool(r *serialization.Reader) {
	r.Expect("data_format", "channels_last", "kerasgo's pooling takes channels_last input")
	r.Expect("keepdims", false, "")
}

func init() {
	mustRegister("GlobalAveragePooling2D", func(r *serialization.Reader) (Layer, error) {
		readGlobalPool(r)
		return &GlobalAveragePooling2D{}, nil
	})
	mustRegister("GlobalMaxPooling2D", func(r *serialization.Reader) (Layer, error) {
		readGlobalPool(r)
		return &GlobalMaxPooling2D{}, nil
	})
}

// takesUnknownDims: GlobalAveragePooling2D reads lengths other than its features from its input.
func (*GlobalAveragePooling2D) takesUnknownDims() {}

// takesUnknownDims: GlobalMaxPooling2D reads lengths other than its features from its input.
func (*GlobalMaxPooling2D) takesUnknownDims() {}
