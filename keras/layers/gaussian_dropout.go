package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// GaussianDropout multiplies the input by Gaussian noise of mean 1 and
// standard deviation sqrt(Rate/(1-Rate)) in training, like
// keras.layers.GaussianDropout.
type GaussianDropout struct {
	Rate float64 // in [0, 1)
	Base
}

// ClassName returns "GaussianDropout".
func (*GaussianDropout) ClassName() string { return "GaussianDropout" }

// Build checks the rate; the shape is unchanged.
func (l *GaussianDropout) Build(inputs []backend.Shape) (backend.Shape, error) {
	if l.Rate < 0 || l.Rate >= 1 {
		return nil, fmt.Errorf("rate must be in [0, 1), got %v", l.Rate)
	}
	return sameShape(inputs)
}

// Call multiplies by the noise in training.
func (l *GaussianDropout) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training || l.Rate == 0 {
		return x
	}
	b := ctx.B
	noise := b.Add(b.Mul(b.RandomNormal(x.Shape()), b.Scalar(math.Sqrt(l.Rate/(1-l.Rate)))), b.Scalar(1))
	return b.Mul(x, noise)
}

// GetConfig returns Keras's config.
func (l *GaussianDropout) GetConfig() (serialization.Config, error) {
	return serialization.Config{"rate": l.Rate, "seed": nil}, nil
}

func (*GaussianDropout) withoutBuildConfig() {}

func init() {
	mustRegister("GaussianDropout", func(r *serialization.Reader) (Layer, error) {
		r.Ignore("seed")
		return &GaussianDropout{Rate: r.Float("rate", 0)}, nil
	})
}

func (*GaussianDropout) takesUnknownDims() {}
