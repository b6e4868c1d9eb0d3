package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// UpSampling1D repeats each step Size times, like keras.layers.UpSampling1D.
type UpSampling1D struct {
	Size int // default 2
	Base
}

// ClassName returns "UpSampling1D".
func (*UpSampling1D) ClassName() string { return "UpSampling1D" }

// Build multiplies the steps.
func (l *UpSampling1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := sequence(inputs)
	if err != nil {
		return nil, err
	}
	if l.Size < 0 {
		return nil, fmt.Errorf("size must be positive, got %d", l.Size)
	}
	return backend.Shape{in[0], in[1] * l.size(), in[2]}, nil
}

func (l *UpSampling1D) size() int {
	if l.Size == 0 {
		return 2
	}
	return l.Size
}

// Call repeats by broadcasting (batch, steps, 1, channels) against ones.
func (l *UpSampling1D) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	d, s := x.Shape(), l.size()
	y := b.Mul(b.Reshape(x, backend.Shape{d[0], d[1], 1, d[2]}), b.Constant(filledWith(1, s), backend.Shape{1, 1, s, 1}))
	return b.Reshape(y, backend.Shape{d[0], d[1] * s, d[2]})
}

// GetConfig returns Keras's config.
func (l *UpSampling1D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"size": l.size()}, nil
}

func init() {
	mustRegister("UpSampling1D", func(r *serialization.Reader) (Layer, error) { return &UpSampling1D{Size: r.Int("size", 2)}, nil })
}

func (*UpSampling1D) takesUnknownDims() {}
