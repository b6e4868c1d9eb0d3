package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// SpatialDropout3D drops whole channels of volumes (batch, depth, height,
// width, channels) in training, like keras.layers.SpatialDropout3D: one
// random keep-or-drop per sample and channel, the kept ones scaled by
// 1/(1 - Rate). At inference it passes the input through.
type SpatialDropout3D struct {
	Rate float64 // in [0, 1)
	Base
}

// ClassName returns "SpatialDropout3D".
func (*SpatialDropout3D) ClassName() string { return "SpatialDropout3D" }

// Build checks for volumes and the rate.
func (l *SpatialDropout3D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) != 5 {
		return nil, fmt.Errorf("expected volumes of shape (batch, depth, height, width, channels), received %v", in)
	}
	return in.Clone(), checkRate(l.Rate)
}

// Call masks channels in training.
func (l *SpatialDropout3D) Call(ctx *Context, in []backend.Value) backend.Value {
	if !ctx.Training || l.Rate == 0 {
		return in[0]
	}
	return spatialDropout(ctx.B, in[0], l.Rate)
}

// GetConfig returns Keras's config, as SpatialDropout2D's.
func (l *SpatialDropout3D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"rate": l.Rate, "seed": nil, "data_format": "channels_last", "dtype": "float32"}, nil
}

func (*SpatialDropout3D) withoutTrainableConfig() {}

func (*SpatialDropout3D) withoutBuildConfig() {}

func init() {
	mustRegister("SpatialDropout3D", func(r *serialization.Reader) (Layer, error) {
		r.Ignore("seed", "noise_shape")
		r.Expect("data_format", "channels_last", "kerasgo's layers take channels_last volumes")
		return &SpatialDropout3D{Rate: r.Float("rate", 0)}, nil
	})
}
