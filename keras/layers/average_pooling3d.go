package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// AveragePooling3D averages windows of channels_last volumes (with "same" padding, a window at the border averages only the voxels inside the volume, as Keras does),
// like keras.layers.AveragePooling3D: (batch, depth, rows, cols, channels).
type AveragePooling3D struct {
	PoolSize [3]int // default (2, 2, 2)
	Strides  [3]int // default PoolSize
	Padding  string // "valid" (default) or "same"
	Base
}

// ClassName returns "AveragePooling3D".
func (*AveragePooling3D) ClassName() string { return "AveragePooling3D" }

func (p *AveragePooling3D) windows() volumeWindows {
	return volumePoolWindows(p.PoolSize, p.Strides, p.Padding)
}

// Build computes the pooled shape.
func (p *AveragePooling3D) Build(inputs []backend.Shape) (backend.Shape, error) {
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
func (p *AveragePooling3D) Call(ctx *Context, in []backend.Value) backend.Value {
	w := p.windows()
	return ops.AveragePool(ctx.B, in[0], w.size[:], w.poolOptions())
}

// GetConfig returns Keras's config.
func (p *AveragePooling3D) GetConfig() (serialization.Config, error) {
	return p.windows().poolConfig(), nil
}

func (*AveragePooling3D) withoutBuildConfig() {}

func init() {
	mustRegister("AveragePooling3D", func(r *serialization.Reader) (Layer, error) {
		w := readVolumePool(r)
		return &AveragePooling3D{PoolSize: w.size, Strides: w.strides, Padding: string(w.padding)}, nil
	})
}
