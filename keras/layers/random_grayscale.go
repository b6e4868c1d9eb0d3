package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomGrayscale turns each RGB image to grayscale with probability
// Factor during training, like keras.layers.RandomGrayscale: the three
// channels all take the luminance 0.2989·R + 0.587·G + 0.114·B (Keras's
// rgb_to_grayscale). Outside training it passes its input through.
//
// Keras's default factor is 0.5; the zero value here converts nothing,
// so set Factor.
type RandomGrayscale struct {
	Factor float64 // the probability of converting an image, in [0, 1]
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "RandomGrayscale".
func (*RandomGrayscale) ClassName() string { return "RandomGrayscale" }

// Build checks the factor and that the images are RGB.
func (l *RandomGrayscale) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := rgbImages(inputs)
	if err != nil {
		return nil, err
	}
	if l.Factor < 0 || l.Factor > 1 {
		return nil, fmt.Errorf("factor must be between 0 and 1, got %v", l.Factor)
	}
	return in.Clone(), nil
}

// Call converts the chosen images in training.
func (l *RandomGrayscale) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b := ctx.B
	apply := b.Greater(b.Scalar(l.Factor), b.RandomUniform(backend.Shape{x.Shape()[0], 1, 1, 1}))
	return ops.Where(b, apply, ops.RgbToGrayscale(b, x), x)
}

// GetConfig returns Keras's config.
func (l *RandomGrayscale) GetConfig() (serialization.Config, error) {
	return serialization.Config{"factor": l.Factor, "data_format": "channels_last"}, nil
}

// takesUnknownDims: RandomGrayscale takes images of any size.
func (*RandomGrayscale) takesUnknownDims() {}

// trainsByDefault: Keras calls RandomGrayscale with training=True by default.
func (*RandomGrayscale) trainsByDefault() {}

func init() {
	mustRegister("RandomGrayscale", func(r *serialization.Reader) (Layer, error) {
		l := &RandomGrayscale{Factor: r.Float("factor", 0.5)}
		r.Ignore("seed") // decides only which images training converts
		expectChannelsLast(r)
		return l, nil
	})
}
