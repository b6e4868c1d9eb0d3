package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// GlobalMaxPooling1D takes the maximum over the steps, like
// keras.layers.GlobalMaxPooling1D.
type GlobalMaxPooling1D struct{ Base }

// ClassName returns "GlobalMaxPooling1D".
func (*GlobalMaxPooling1D) ClassName() string { return "GlobalMaxPooling1D" }

// Build drops the steps.
func (l *GlobalMaxPooling1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := sequence(inputs)
	if err != nil {
		return nil, err
	}
	return backend.Shape{in[0], in[2]}, nil
}

// Call takes the maximum as a pool over the whole row.
func (l *GlobalMaxPooling1D) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	d := x.Shape()
	y := b.MaxPool2D(asImage(b, x), backend.PoolOptions{Size: [2]int{1, d[1]}, Strides: [2]int{1, d[1]}})
	return b.Reshape(y, backend.Shape{d[0], d[2]})
}

// GetConfig returns Keras's config.
func (l *GlobalMaxPooling1D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"data_format": "channels_last", "keepdims": false}, nil
}

func (*GlobalMaxPooling1D) withoutBuildConfig() {}

// takesUnknownDims: GlobalMaxPooling1D reads lengths other than its features from its input.
func (*GlobalMaxPooling1D) takesUnknownDims() {}

func init() {
	mustRegister("GlobalMaxPooling1D", func(r *serialization.Reader) (Layer, error) { readGlobal1D(r); return &GlobalMaxPooling1D{}, nil })
}
