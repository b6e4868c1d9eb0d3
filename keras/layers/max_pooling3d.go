package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// MaxPooling3D takes the maximum over windows of channels_last volumes,
// like keras.layers.MaxPooling3D: (batch, depth, rows, cols, channels).
type MaxPooling3D struct {
	PoolSize [3]int // default (2, 2, 2)
	Strides  [3]int // default PoolSize
	Padding  string // "valid" (default) or "same"
	Base
}

// ClassName returns "MaxPooling3D".
func (*MaxPooling3D) ClassName() string { return "MaxPooling3D" }

func (p *MaxPooling3D) windows() volumeWindows {
	return volumePoolWindows(p.PoolSize, p.Strides, p.Padding)
}

// Build computes the pooled shape.
func (p *MaxPooling3D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	out, err := p.windows().volume(in)
	if err != nil {
		return nil, err
	}
	return backend.Shape{in[0], out[0], out[1], out[2], in[4]}, nil
}

// Call pools.
func (p *MaxPooling3D) Call(ctx *Context, in []backend.Value) backend.Value {
	w := p.windows()
	return ops.MaxPool(ctx.B, in[0], w.size[:], w.poolOptions())
}

// GetConfig returns Keras's config.
func (p *MaxPooling3D) GetConfig() (serialization.Config, error) {
	return p.windows().poolConfig(), nil
}

func (*MaxPooling3D) withoutBuildConfig() {}

func init() {
	mustRegister("MaxPooling3D", func(r *serialization.Reader) (Layer, error) {
		w := readVolumePool(r)
		return &MaxPooling3D{PoolSize: w.size, Strides: w.strides, Padding: string(w.padding)}, nil
	})
}
