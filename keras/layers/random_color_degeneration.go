package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomColorDegeneration blends each RGB image towards its grayscale
// version during training, like keras.layers.RandomColorDegeneration:
// x + f·(gray(x) - x), clipped to ValueRange, with f drawn per image from
// the factor's range (f = 1 is grayscale). Outside training it passes its
// input through.
//
// As in Keras, a single Factor f gives the range (-f, f).
type RandomColorDegeneration struct {
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

// ClassName returns "RandomColorDegeneration".
func (*RandomColorDegeneration) ClassName() string { return "RandomColorDegeneration" }

// Build checks the settings and that the images are RGB.
func (l *RandomColorDegeneration) Build(inputs []backend.Shape) (backend.Shape, error) {
	return buildColor(inputs, true, l.Factor, l.FactorRange, -1, l.ValueRange)
}

// Call blends in training.
func (l *RandomColorDegeneration) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b := ctx.B
	f, _ := factorRange(l.Factor, l.FactorRange, -1, 1)
	vr := colorRange(l.ValueRange)
	y := b.Add(x, b.Mul(perImage(b, x, f[0], f[1]), b.Sub(ops.RgbToGrayscale(b, x), x)))
	return clip(b, y, vr[0], vr[1])
}

// GetConfig returns Keras's config.
func (l *RandomColorDegeneration) GetConfig() (serialization.Config, error) {
	return colorFactorConfig(l.Factor, l.FactorRange, -1, l.ValueRange)
}

// takesUnknownDims: RandomColorDegeneration takes images of any size.
func (*RandomColorDegeneration) takesUnknownDims() {}

// trainsByDefault: Keras calls RandomColorDegeneration with training=True by default.
func (*RandomColorDegeneration) trainsByDefault() {}

func init() {
	mustRegister("RandomColorDegeneration", func(r *serialization.Reader) (Layer, error) {
		f, pair := readColorFactor(r)
		return &RandomColorDegeneration{Factor: f, FactorRange: pair, ValueRange: sortedValueRange(r)}, nil
	})
}
