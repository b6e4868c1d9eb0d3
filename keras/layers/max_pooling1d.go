package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// MaxPooling1D takes the maximum over windows of steps, like
// keras.layers.MaxPooling1D.
type MaxPooling1D struct{ pool1D }

// ClassName returns "MaxPooling1D".
func (*MaxPooling1D) ClassName() string { return "MaxPooling1D" }

func (p *MaxPooling1D) pool() *MaxPooling2D {
	size, strides := p.as2D()
	return &MaxPooling2D{PoolSize: size, Strides: strides, Padding: p.Padding}
}

// Build computes the pooled shape.
func (p *MaxPooling1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return p.build(inputs, p.pool())
}

// Call pools.
func (p *MaxPooling1D) Call(ctx *Context, in []backend.Value) backend.Value {
	return fromImage(ctx.B, p.pool().Call(ctx, []backend.Value{asImage(ctx.B, in[0])}))
}

func init() {
	mustRegister("MaxPooling1D", func(r *serialization.Reader) (Layer, error) { return &MaxPooling1D{readPool1D(r)}, nil })
}

func (*MaxPooling1D) takesUnknownDims() {}
