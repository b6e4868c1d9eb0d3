package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// GlobalAveragePooling1D averages over the steps, like
// keras.layers.GlobalAveragePooling1D: (batch, steps, channels) to
// (batch, channels).
type GlobalAveragePooling1D struct{ Base }

// ClassName returns "GlobalAveragePooling1D".
func (*GlobalAveragePooling1D) ClassName() string { return "GlobalAveragePooling1D" }

// Build drops the steps.
func (l *GlobalAveragePooling1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := sequence(inputs)
	if err != nil {
		return nil, err
	}
	return backend.Shape{in[0], in[2]}, nil
}

// Call averages; with a mask, over the data steps only (Keras's
// sum(x*mask)/sum(mask)).
func (l *GlobalAveragePooling1D) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	mask := ctx.Mask(0)
	if mask == nil {
		return b.Mean(in[0], 1)
	}
	s := in[0].Shape()
	m := b.Reshape(mask, backend.Shape{s[0], s[1], 1})
	return b.Div(b.Sum(b.Mul(in[0], m), 1), b.Sum(m, 1))
}

// GetConfig returns Keras's config.
func (l *GlobalAveragePooling1D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"data_format": "channels_last", "keepdims": false}, nil
}

func (*GlobalAveragePooling1D) withoutBuildConfig() {}

// takesUnknownDims: GlobalAveragePooling1D reads lengths other than its features from its input.
func (*GlobalAveragePooling1D) takesUnknownDims() {}

func init() {
	mustRegister("GlobalAveragePooling1D", func(r *serialization.Reader) (Layer, error) { readGlobal1D(r); return &GlobalAveragePooling1D{}, nil })
}
