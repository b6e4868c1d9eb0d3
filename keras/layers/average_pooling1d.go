package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// AveragePooling1D averages windows of steps, like
// keras.layers.AveragePooling1D ("same" averages only the steps inside
// the sequence).
type AveragePooling1D struct{ pool1D }

// ClassName returns "AveragePooling1D".
func (*AveragePooling1D) ClassName() string { return "AveragePooling1D" }

func (p *AveragePooling1D) pool() *AveragePooling2D {
	size, strides := p.as2D()
	return &AveragePooling2D{PoolSize: size, Strides: strides, Padding: p.Padding}
}

// Build computes the pooled shape.
func (p *AveragePooling1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return p.build(inputs, p.pool())
}

// Call pools.
func (p *AveragePooling1D) Call(ctx *Context, in []backend.Value) backend.Value {
	return fromImage(ctx.B, p.pool().Call(ctx, []backend.Value{asImage(ctx.B, in[0])}))
}

func init() {
	mustRegister("AveragePooling1D", func(r *serialization.Reader) (Layer, error) { return &AveragePooling1D{readPool1D(r)}, nil })
}

func (*AveragePooling1D) takesUnknownDims() {}
