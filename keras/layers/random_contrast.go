package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomContrast scales each image's distance from its per-channel mean
// by a random factor during training, like keras.layers.RandomContrast:
// (x - mean) * c + mean, clipped to ValueRange, with c drawn per image
// from [1 - lower, 1 + upper]. Outside training it passes its input
// through.
//
// As in Keras 3, a single Factor f gives the range (max(-f, 0), f) =
// (0, f): contrast is only raised. Give FactorRange {f, f} for
// [1 - f, 1 + f].
type RandomContrast struct {
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

// ClassName returns "RandomContrast".
func (*RandomContrast) ClassName() string { return "RandomContrast" }

// Build checks the factor; the shape is unchanged.
func (l *RandomContrast) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, err := factorRange(l.Factor, l.FactorRange, 0, 1); err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// Call adjusts the contrast in training.
func (l *RandomContrast) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b := ctx.B
	f, _ := factorRange(l.Factor, l.FactorRange, 0, 1)
	c := perImage(b, x, 1-f[0], 1+f[1])
	s := x.Shape()
	mean := b.Reshape(b.Mean(x, 1, 2), backend.Shape{s[0], 1, 1, s[3]})
	vr := givenRange(l.ValueRange)
	return clip(b, b.Add(b.Mul(b.Sub(x, mean), c), mean), vr[0], vr[1])
}

// GetConfig returns Keras's config.
func (l *RandomContrast) GetConfig() (serialization.Config, error) {
	f, err := factorRange(l.Factor, l.FactorRange, 0, 1)
	if err != nil {
		return nil, err
	}
	return serialization.Config{"factor": f[:], "value_range": givenRange(l.ValueRange), "seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: RandomContrast takes images of any size.
func (*RandomContrast) takesUnknownDims() {}

func init() {
	mustRegister("RandomContrast", func(r *serialization.Reader) (Layer, error) {
		f, pair, given := readFactor(r, "factor")
		if !given {
			r.Fail("factor", "is required")
		}
		l := &RandomContrast{Factor: f, FactorRange: pair, ValueRange: readValueRange(r, [2]float64{0, 255})}
		r.Ignore("seed") // decides only which factors training draws
		expectChannelsLast(r)
		return l, nil
	})
}

// trainsByDefault: Keras calls RandomContrast with training=True by default.
func (*RandomContrast) trainsByDefault() {}
