package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// SpatialDropout1D drops whole feature channels of sequences (batch,
// steps, channels) in training, like keras.layers.SpatialDropout1D: one
// random keep-or-drop per sample and channel, shared by every step, the
// kept ones scaled by 1/(1 - Rate). At inference it passes the input
// through.
type SpatialDropout1D struct {
	Rate float64 // in [0, 1)
	Base
}

// ClassName returns "SpatialDropout1D".
func (*SpatialDropout1D) ClassName() string { return "SpatialDropout1D" }

// Build checks for sequences and the rate.
func (l *SpatialDropout1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) != 3 {
		return nil, fmt.Errorf("expected sequences of shape (batch, steps, channels), received %v", in)
	}
	return in.Clone(), checkRate(l.Rate)
}

// Call masks channels in training.
func (l *SpatialDropout1D) Call(ctx *Context, in []backend.Value) backend.Value {
	if !ctx.Training || l.Rate == 0 {
		return in[0]
	}
	return spatialDropout(ctx.B, in[0], l.Rate)
}

// GetConfig returns Keras's config: its rate, seed and dtype (as a
// string), Keras's SpatialDropout1D taking no other arguments.
func (l *SpatialDropout1D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"rate": l.Rate, "seed": nil, "dtype": "float32"}, nil
}

func (*SpatialDropout1D) withoutTrainableConfig() {}

func (*SpatialDropout1D) withoutBuildConfig() {}

func init() {
	mustRegister("SpatialDropout1D", func(r *serialization.Reader) (Layer, error) {
		r.Ignore("seed", "noise_shape")
		return &SpatialDropout1D{Rate: r.Float("rate", 0)}, nil
	})
}
