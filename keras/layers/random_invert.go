package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomInvert inverts the colours of some images during training, like
// keras.layers.RandomInvert: an image becomes ValueRange's high end minus
// itself (Keras's value_range[1] - x) with a probability drawn per image
// from the factor's range. Outside training it passes its input through.
//
// A Factor f gives the range (0, f); Keras's default is 1, so set
// Factor: 1 for Keras's layer (the zero value inverts nothing).
type RandomInvert struct {
	Factor      float64    // in [0, 1]
	FactorRange [2]float64 // (lower, upper) instead of Factor, each in [0, 1]
	// ValueRange is the range of the pixel values; zero means Keras's
	// default (0, 255).
	ValueRange [2]float64
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "RandomInvert".
func (*RandomInvert) ClassName() string { return "RandomInvert" }

// Build checks the settings; the shape is unchanged.
func (l *RandomInvert) Build(inputs []backend.Shape) (backend.Shape, error) {
	return buildColor(inputs, false, l.Factor, l.FactorRange, 0, l.ValueRange)
}

// Call inverts the chosen images in training.
func (l *RandomInvert) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b := ctx.B
	f, _ := factorRange(l.Factor, l.FactorRange, 0, 1)
	return ops.Where(b, coin(b, x, f[0], f[1]), b.Sub(b.Scalar(givenRange(l.ValueRange)[1]), x), x)
}

// GetConfig returns Keras's config.
func (l *RandomInvert) GetConfig() (serialization.Config, error) {
	f, err := factorRange(l.Factor, l.FactorRange, 0, 1)
	if err != nil {
		return nil, err
	}
	return serialization.Config{"factor": f[:], "value_range": givenRange(l.ValueRange), "seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: RandomInvert takes images of any size.
func (*RandomInvert) takesUnknownDims() {}

// trainsByDefault: Keras calls RandomInvert with training=True by default.
func (*RandomInvert) trainsByDefault() {}

func init() {
	mustRegister("RandomInvert", func(r *serialization.Reader) (Layer, error) {
		f, pair := readFactorOr(r, "factor", 1)
		l := &RandomInvert{Factor: f, FactorRange: pair, ValueRange: readValueRange(r, [2]float64{0, 255})}
		r.Ignore("seed") // decides only which images training inverts
		expectChannelsLast(r)
		return l, nil
	})
}
