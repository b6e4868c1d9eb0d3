package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomSharpness sharpens or blurs each image during training, like
// keras.layers.RandomSharpness: x + (1 - 2f)·(smooth(x) - x), clipped to
// ValueRange, with f drawn per image from the factor's range (f = 0.5
// leaves an image as it is, below blurs, above sharpens). smooth is
// Keras's 3×3 kernel (1/13 around, 5/13 in the centre) over each channel
// with zero "same" padding. Outside training it passes its input through.
//
// A single Factor f gives the range (0, f).
type RandomSharpness struct {
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

// ClassName returns "RandomSharpness".
func (*RandomSharpness) ClassName() string { return "RandomSharpness" }

// Build checks the settings; the shape is unchanged.
func (l *RandomSharpness) Build(inputs []backend.Shape) (backend.Shape, error) {
	return buildColor(inputs, false, l.Factor, l.FactorRange, 0, l.ValueRange)
}

// Call changes the sharpness in training.
func (l *RandomSharpness) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b := ctx.B
	f, _ := factorRange(l.Factor, l.FactorRange, 0, 1)
	c := x.Shape()[3]
	a, m := 1.0/13, 5.0/13
	kernel := make([]float64, 0, 9*c)
	for _, v := range []float64{a, a, a, a, m, a, a, a, a} {
		for range c {
			kernel = append(kernel, v)
		}
	}
	smooth := ops.DepthwiseConv(b, x, b.Constant(kernel, backend.Shape{3, 3, c, 1}), ops.ConvOptions{Padding: backend.Same})
	weight := b.Sub(b.Scalar(1), b.Mul(b.Scalar(2), perImage(b, x, f[0], f[1])))
	vr := colorRange(l.ValueRange)
	return clip(b, b.Add(x, b.Mul(weight, b.Sub(smooth, x))), vr[0], vr[1])
}

// GetConfig returns Keras's config.
func (l *RandomSharpness) GetConfig() (serialization.Config, error) {
	return colorFactorConfig(l.Factor, l.FactorRange, 0, l.ValueRange)
}

// takesUnknownDims: RandomSharpness takes images of any size.
func (*RandomSharpness) takesUnknownDims() {}

// trainsByDefault: Keras calls RandomSharpness with training=True by default.
func (*RandomSharpness) trainsByDefault() {}

func init() {
	mustRegister("RandomSharpness", func(r *serialization.Reader) (Layer, error) {
		f, pair := readColorFactor(r)
		return &RandomSharpness{Factor: f, FactorRange: pair, ValueRange: sortedValueRange(r)}, nil
	})
}
