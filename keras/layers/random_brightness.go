package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomBrightness adds a random amount to each image during training,
// like keras.layers.RandomBrightness: delta * (ValueRange's width), with
// delta drawn per image from the factor's range, and clips the result to
// ValueRange. A Factor f gives the range [-f, f]. Outside training it
// passes its input through.
type RandomBrightness struct {
	Factor      float64    // in [-1, 1]
	FactorRange [2]float64 // (lower, upper) instead of Factor, each in [-1, 1]
	// ValueRange is the range of the pixel values; zero means Keras's
	// default (0, 255).
	ValueRange [2]float64
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "RandomBrightness".
func (*RandomBrightness) ClassName() string { return "RandomBrightness" }

// Build checks the factor; the shape is unchanged.
func (l *RandomBrightness) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, err := factorRange(l.Factor, l.FactorRange, -1, 1); err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// Call shifts the brightness in training.
func (l *RandomBrightness) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b := ctx.B
	f, _ := factorRange(l.Factor, l.FactorRange, -1, 1)
	vr := colorRange(l.ValueRange)
	width := vr[1] - vr[0]
	return clip(b, b.Add(x, perImage(b, x, f[0]*width, f[1]*width)), vr[0], vr[1])
}

// GetConfig returns Keras's config.
func (l *RandomBrightness) GetConfig() (serialization.Config, error) {
	f, err := factorRange(l.Factor, l.FactorRange, -1, 1)
	if err != nil {
		return nil, err
	}
	return serialization.Config{"factor": f[:], "value_range": colorRange(l.ValueRange), "seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: RandomBrightness takes images of any size.
func (*RandomBrightness) takesUnknownDims() {}

func init() {
	mustRegister("RandomBrightness", func(r *serialization.Reader) (Layer, error) {
		f, pair, given := readFactor(r, "factor")
		if !given {
			r.Fail("factor", "is required")
		}
		l := &RandomBrightness{Factor: f, FactorRange: pair, ValueRange: readValueRange(r, [2]float64{0, 255})}
		r.Ignore("seed") // decides only which amounts training draws
		expectChannelsLast(r)
		return l, nil
	})
}

// trainsByDefault: Keras calls RandomBrightness with training=True by default.
func (*RandomBrightness) trainsByDefault() {}
