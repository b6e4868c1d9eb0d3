package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// SpatialDropout2D drops whole channels of images (batch, height, width,
// channels) in training, like keras.layers.SpatialDropout2D: one random
// keep-or-drop per sample and channel, the kept ones scaled by
// 1/(1 - Rate). At inference it passes the input through.
type SpatialDropout2D struct {
	Rate float64 // in [0, 1)
	Base
}

// ClassName returns "SpatialDropout2D".
func (*SpatialDropout2D) ClassName() string { return "SpatialDropout2D" }

// Build checks for images and the rate.
func (l *SpatialDropout2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	return in.Clone(), checkRate(l.Rate)
}

// Call masks channels in training.
func (l *SpatialDropout2D) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training || l.Rate == 0 {
		return x
	}
	return spatialDropout(ctx.B, x, l.Rate)
}

// spatialDropout drops whole channels (the last axis) of x: one random
// keep-or-drop per sample and channel, shared by every position, the
// kept ones scaled by 1/(1 - rate), as Keras's SpatialDropout layers.
func spatialDropout(b backend.Builder, x backend.Value, rate float64) backend.Value {
	d := x.Shape()
	noise := make(backend.Shape, len(d))
	for i := range noise {
		noise[i] = 1
	}
	noise[0], noise[len(d)-1] = d[0], d[len(d)-1]
	keep := b.Greater(b.RandomUniform(noise), b.Scalar(rate))
	return b.Mul(b.Mul(x, keep), b.Scalar(1/(1-rate)))
}

// checkRate refuses a dropout rate outside [0, 1).
func checkRate(rate float64) error {
	if rate < 0 || rate >= 1 {
		return fmt.Errorf("rate must be in [0, 1), got %v", rate)
	}
	return nil
}

// GetConfig returns Keras's config, which (unlike other layers') has no
// noise_shape or trainable and names its dtype as a string: Keras's
// SpatialDropout2D takes no other arguments.
func (l *SpatialDropout2D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"rate": l.Rate, "seed": nil, "data_format": "channels_last", "dtype": "float32"}, nil
}

func (*SpatialDropout2D) withoutTrainableConfig() {}

func (*SpatialDropout2D) withoutBuildConfig() {}

func init() {
	mustRegister("SpatialDropout2D", func(r *serialization.Reader) (Layer, error) {
		r.Ignore("seed", "noise_shape")
		r.Expect("data_format", "channels_last", "kerasgo's layers take channels_last images")
		return &SpatialDropout2D{Rate: r.Float("rate", 0)}, nil
	})
}
