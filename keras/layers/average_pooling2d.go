package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// AveragePooling2D averages windows of channels_last images, like
// keras.layers.AveragePooling2D; with "same" padding, a window at the
// border averages only the pixels inside the image, as Keras does.
type AveragePooling2D struct {
	PoolSize [2]int // default (2, 2)
	Strides  [2]int // default PoolSize
	Padding  string // "valid" (default) or "same"
	Base
}

// ClassName returns "AveragePooling2D".
func (*AveragePooling2D) ClassName() string { return "AveragePooling2D" }

func (p *AveragePooling2D) windows() windows {
	o := (&MaxPooling2D{PoolSize: p.PoolSize, Strides: p.Strides, Padding: p.Padding}).options()
	return windows{size: o.Size, strides: o.Strides, dilation: [2]int{1, 1}, padding: o.Padding}
}

// Build computes the pooled shape.
func (p *AveragePooling2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	rows, cols, err := p.windows().image(in)
	if err != nil {
		return nil, err
	}
	return backend.Shape{in[0], rows, cols, in[3]}, nil
}

// Call averages each window, padding excluded.
func (p *AveragePooling2D) Call(ctx *Context, in []backend.Value) backend.Value {
	w := p.windows()
	return ops.AveragePool(ctx.B, in[0], w.size[:], ops.PoolOptions{Strides: w.strides[:], Padding: w.padding})
}

// GetConfig returns Keras's config.
func (p *AveragePooling2D) GetConfig() (serialization.Config, error) {
	w := p.windows()
	return serialization.Config{"pool_size": w.size[:], "padding": string(w.padding), "strides": w.strides[:], "data_format": "channels_last"}, nil
}

func (*AveragePooling2D) withoutBuildConfig() {}

func init() {
	mustRegister("AveragePooling2D", func(r *serialization.Reader) (Layer, error) {
		p := &AveragePooling2D{PoolSize: r.PositivePair("pool_size", [2]int{2, 2}), Padding: r.String("padding", "valid")}
		p.Strides = r.PositivePair("strides", p.PoolSize)
		r.Expect("data_format", "channels_last", "kerasgo's pooling takes channels_last input")
		return p, nil
	})
}
