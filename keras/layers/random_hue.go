package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomHue shifts the hue of each RGB image during training, like
// keras.layers.RandomHue: the values are mapped from ValueRange to [0,
// 1], the hue is moved by ±f/2 (sign and f drawn per image, f from the
// factor's range) and wrapped into [0, 1], and the image is converted
// back, clipped and mapped to ValueRange. Outside training it passes its
// input through.
//
// A single Factor f gives the range (0, f).
type RandomHue struct {
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

// ClassName returns "RandomHue".
func (*RandomHue) ClassName() string { return "RandomHue" }

// Build checks the settings and that the images are RGB.
func (l *RandomHue) Build(inputs []backend.Shape) (backend.Shape, error) {
	return buildColor(inputs, true, l.Factor, l.FactorRange, 0, l.ValueRange)
}

// Call shifts the hue in training.
func (l *RandomHue) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b := ctx.B
	f, _ := factorRange(l.Factor, l.FactorRange, 0, 1)
	vr := givenRange(l.ValueRange)
	// Keras: the sign is -1 where a uniform draw is above 0.5.
	sign := b.Sub(b.Scalar(1), b.Mul(b.Scalar(2), b.Greater(b.RandomUniform(backend.Shape{x.Shape()[0], 1, 1, 1}), b.Scalar(0.5))))
	shift := b.Mul(b.Mul(sign, perImage(b, x, f[0], f[1])), b.Scalar(0.5))
	unit := [2]float64{0, 1}
	y := adjustHSV(b, ops.RgbToHsv(b, toValueRange(b, x, vr, unit)), func(h, s, v backend.Value) (backend.Value, backend.Value, backend.Value) {
		h = b.Add(h, shift)
		one := b.Scalar(1)
		h = ops.Where(b, b.Greater(h, one), b.Sub(h, one), h)
		h = ops.Where(b, b.Greater(b.Scalar(0), h), b.Add(h, one), h)
		return h, s, v
	})
	return toValueRange(b, clip(b, y, 0, 1), unit, vr)
}

// GetConfig returns Keras's config.
func (l *RandomHue) GetConfig() (serialization.Config, error) {
	f, err := factorRange(l.Factor, l.FactorRange, 0, 1)
	if err != nil {
		return nil, err
	}
	return serialization.Config{"factor": f[:], "value_range": givenRange(l.ValueRange), "seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: RandomHue takes images of any size.
func (*RandomHue) takesUnknownDims() {}

// trainsByDefault: Keras calls RandomHue with training=True by default.
func (*RandomHue) trainsByDefault() {}

func init() {
	mustRegister("RandomHue", func(r *serialization.Reader) (Layer, error) {
		f, pair := readColorFactor(r)
		return &RandomHue{Factor: f, FactorRange: pair, ValueRange: readValueRange(r, [2]float64{0, 255})}, nil
	})
}
