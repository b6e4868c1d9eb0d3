package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Dropout sets a fraction Rate of its inputs to zero during training and
// scales the rest by 1/(1-Rate) (inverted dropout), like
// keras.layers.Dropout. Outside training it passes its input through.
type Dropout struct {
	Rate float64 // in [0, 1)
	// NoiseShape, when set, is the shape of the keep-or-drop mask, which
	// broadcasts over the input (Keras's noise_shape): one entry per axis
	// of the input, batch included, and -1 (Keras's None) for the
	// input's own length. (-1, 1, 1, 1) drops whole samples of images,
	// as EfficientNet's stochastic depth does.
	NoiseShape []int
	Base
}

// ClassName returns "Dropout".
func (d *Dropout) ClassName() string { return "Dropout" }

// Build checks the rate; the shape is unchanged.
func (d *Dropout) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if d.Rate < 0 || d.Rate >= 1 {
		return nil, fmt.Errorf("rate must be in [0, 1), got %v", d.Rate)
	}
	if d.NoiseShape != nil {
		if len(d.NoiseShape) != len(in) {
			return nil, fmt.Errorf("noise shape %v has %d axes, the input %v has %d: give one entry per axis, batch included (-1 for the input's length)", d.NoiseShape, len(d.NoiseShape), in, len(in))
		}
		for i, n := range d.NoiseShape {
			if n != -1 && n != 1 && n != in[i] {
				return nil, fmt.Errorf("noise shape %v does not broadcast to the input %v: axis %d must be 1, -1 or %d", d.NoiseShape, in, i, in[i])
			}
		}
	}
	return in.Clone(), nil
}

// Call masks the input with a fresh random mask in training.
func (d *Dropout) Call(ctx *Context, inputs []backend.Value) backend.Value {
	x := inputs[0]
	if !ctx.Training || d.Rate == 0 {
		return x
	}
	if d.NoiseShape == nil {
		return ctx.B.Dropout(x, d.Rate)
	}
	b, shape := ctx.B, x.Shape()
	mask := make(backend.Shape, len(shape))
	for i, n := range d.NoiseShape {
		mask[i] = n
		if n == -1 {
			mask[i] = shape[i]
		}
	}
	keep := b.Greater(b.RandomUniform(mask), b.Scalar(d.Rate))
	return b.Mul(b.Mul(x, keep), b.Scalar(1/(1-d.Rate)))
}

// GetConfig returns Keras's Dropout config.
func (d *Dropout) GetConfig() (serialization.Config, error) {
	var noise any
	if d.NoiseShape != nil {
		dims := make([]any, len(d.NoiseShape))
		for i, n := range d.NoiseShape {
			if n >= 0 {
				dims[i] = n
			}
		}
		noise = dims
	}
	return serialization.Config{"rate": d.Rate, "seed": nil, "noise_shape": noise}, nil
}

func (d *Dropout) withoutBuildConfig() {}

// takesUnknownDims: Dropout reads lengths other than its features from its input.
func (*Dropout) takesUnknownDims() {}

func init() {
	mustRegister("Dropout", func(r *serialization.Reader) (Layer, error) {
		d := &Dropout{Rate: r.Float("rate", 0), NoiseShape: r.Ints("noise_shape")}
		r.Ignore("seed") // only decides which units training drops
		return d, nil
	})
}
