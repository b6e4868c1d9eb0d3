package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomSaturation scales the saturation of each RGB image during
// training, like keras.layers.RandomSaturation: in HSV, the saturation
// is multiplied by f / (1 - f + 1e-7), with f drawn per image from the
// factor's range (0.5 leaves an image as it is, 1 saturates it fully, 0
// turns it grayscale), and clipped to ValueRange. Outside training it
// passes its input through.
//
// As Keras does, the HSV conversion takes the pixel values as they are
// (not mapped to [0, 1]), and a single Factor f gives the range (-f, f),
// whose negative half turns an image grayscale; give FactorRange for a
// range inside [0, 1].
type RandomSaturation struct {
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

// ClassName returns "RandomSaturation".
func (*RandomSaturation) ClassName() string { return "RandomSaturation" }

// Build checks the settings and that the images are RGB.
func (l *RandomSaturation) Build(inputs []backend.Shape) (backend.Shape, error) {
	return buildColor(inputs, true, l.Factor, l.FactorRange, -1, l.ValueRange)
}

// Call scales the saturation in training.
func (l *RandomSaturation) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b := ctx.B
	f, _ := factorRange(l.Factor, l.FactorRange, -1, 1)
	g := perImage(b, x, f[0], f[1])
	g = b.Div(g, b.Add(b.Sub(b.Scalar(1), g), b.Scalar(1e-7))) // Keras's epsilon()
	vr := colorRange(l.ValueRange)
	return adjustHSV(b, ops.RgbToHsv(b, x), func(h, s, v backend.Value) (backend.Value, backend.Value, backend.Value) {
		return h, clip(b, b.Mul(s, g), vr[0], vr[1]), v
	})
}

// GetConfig returns Keras's config.
func (l *RandomSaturation) GetConfig() (serialization.Config, error) {
	return colorFactorConfig(l.Factor, l.FactorRange, -1, l.ValueRange)
}

// takesUnknownDims: RandomSaturation takes images of any size.
func (*RandomSaturation) takesUnknownDims() {}

// trainsByDefault: Keras calls RandomSaturation with training=True by default.
func (*RandomSaturation) trainsByDefault() {}

func init() {
	mustRegister("RandomSaturation", func(r *serialization.Reader) (Layer, error) {
		f, pair := readColorFactor(r)
		return &RandomSaturation{Factor: f, FactorRange: pair, ValueRange: sortedValueRange(r)}, nil
	})
}
