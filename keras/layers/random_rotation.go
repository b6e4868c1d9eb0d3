package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomRotation turns each image about its centre by a random angle
// during training, like keras.layers.RandomRotation: Factor f draws the
// angle from [-f, f] turns (f = 0.1 is up to 36 degrees either way), and
// FactorRange (lower, upper) from [lower, upper] turns. Pixels that come
// from outside the image are filled by FillMode. Outside training it
// passes its input through.
type RandomRotation struct {
	Factor      float64    // in [-1, 1], a fraction of a full turn
	FactorRange [2]float64 // (lower, upper) instead of Factor
	// FillMode is "reflect" (the default when empty), "wrap", "constant"
	// (FillValue) or "nearest".
	FillMode  string
	FillValue float64
	// Interpolation is "bilinear" (the default when empty) or "nearest".
	Interpolation string
	Base
}

// ClassName returns "RandomRotation".
func (*RandomRotation) ClassName() string { return "RandomRotation" }

// Build checks the settings; the shape is unchanged.
func (l *RandomRotation) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, err := factorRange(l.Factor, l.FactorRange, -1, 1); err != nil {
		return nil, err
	}
	set := settingsOf(l.FillMode, l.Interpolation)
	return in.Clone(), checkTransformModes(set.interpolation, set.fillMode)
}

// Call rotates in training.
func (l *RandomRotation) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b, s := ctx.B, x.Shape()
	f, _ := factorRange(l.Factor, l.FactorRange, -1, 1)
	theta := uniformPerImage(b, s[0], f[0]*fullTurn, f[1]*fullTurn)
	set := settingsOf(l.FillMode, l.Interpolation)
	return affineTransform(b, x, rotation(b, theta, s[1], s[2]), set.interpolation, set.fillMode, l.FillValue)
}

// GetConfig returns Keras's config.
func (l *RandomRotation) GetConfig() (serialization.Config, error) {
	f, err := factorRange(l.Factor, l.FactorRange, -1, 1)
	if err != nil {
		return nil, err
	}
	set := settingsOf(l.FillMode, l.Interpolation)
	return serialization.Config{"factor": f[:], "fill_mode": set.fillMode, "fill_value": l.FillValue,
		"interpolation": set.interpolation, "seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: RandomRotation takes images of any size.
func (*RandomRotation) takesUnknownDims() {}

// trainsByDefault: Keras calls RandomRotation with training=True by default.
func (*RandomRotation) trainsByDefault() {}

func init() {
	mustRegister("RandomRotation", func(r *serialization.Reader) (Layer, error) {
		f, pair, given := readFactor(r, "factor")
		if !given {
			r.Fail("factor", "is required")
		}
		l := &RandomRotation{Factor: f, FactorRange: pair, FillMode: r.String("fill_mode", "reflect"),
			FillValue: r.Float("fill_value", 0), Interpolation: r.String("interpolation", "bilinear")}
		r.Ignore("seed") // decides only which angles training draws
		expectChannelsLast(r)
		return l, nil
	})
}
