package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// MaxPooling2D takes the maximum over windows of channels_last input, like
// keras.layers.MaxPooling2D.
type MaxPooling2D struct {
	PoolSize [2]int // default (2, 2)
	Strides  [2]int // default PoolSize
	Padding  string // "valid" (default) or "same"
	Base
}

// ClassName returns "MaxPooling2D".
func (p *MaxPooling2D) ClassName() string { return "MaxPooling2D" }

func (p *MaxPooling2D) options() backend.PoolOptions {
	size := p.PoolSize
	if size == [2]int{} {
		size = [2]int{2, 2}
	}
	return backend.PoolOptions{Size: size, Strides: p.Strides, Padding: backend.Padding(p.Padding)}.Normalized()
}

// Build computes the pooled shape.
func (p *MaxPooling2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) != 4 {
		return nil, fmt.Errorf("expected an input of shape (batch, rows, cols, channels), received %v", in)
	}
	return backend.MaxPool2DShape(in, p.options())
}

// Call pools.
func (p *MaxPooling2D) Call(ctx *Context, inputs []backend.Value) backend.Value {
	return ctx.B.MaxPool2D(inputs[0], p.options())
}

// GetConfig returns Keras's MaxPooling2D config.
func (p *MaxPooling2D) GetConfig() (serialization.Config, error) {
	o := p.options()
	return serialization.Config{"pool_size": o.Size[:], "padding": string(o.Padding), "strides": o.Strides[:], "data_format": "channels_last"}, nil
}

func (p *MaxPooling2D) withoutBuildConfig() {}

func init() {
	mustRegister("MaxPooling2D", func(r *serialization.Reader) (Layer, error) {
		p := &MaxPooling2D{PoolSize: r.PositivePair("pool_size", [2]int{2, 2}), Padding: r.String("padding", "valid")}
		p.Strides = r.PositivePair("strides", p.PoolSize)
		r.Expect("data_format", "channels_last", "kerasgo's pooling takes channels_last input")
		return p, nil
	})
}
