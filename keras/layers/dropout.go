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
	return in.Clone(), nil
}

// Call masks the input with a fresh random mask in training.
func (d *Dropout) Call(ctx *Context, inputs []backend.Value) backend.Value {
	x := inputs[0]
	if !ctx.Training || d.Rate == 0 {
		return x
	}
	return ctx.B.Dropout(x, d.Rate)
}

// GetConfig returns Keras's Dropout config.
func (d *Dropout) GetConfig() (serialization.Config, error) {
	return serialization.Config{"rate": d.Rate, "seed": nil, "noise_shape": nil}, nil
}

func (d *Dropout) withoutBuildConfig() {}

// takesUnknownDims: Dropout reads lengths other than its features from its input.
func (*Dropout) takesUnknownDims() {}

func init() {
	mustRegister("Dropout", func(r *serialization.Reader) (Layer, error) {
		d := &Dropout{Rate: r.Float("rate", 0)}
		r.Ignore("seed") // only decides which units training drops
		r.ExpectNull("noise_shape")
		return d, nil
	})
}
