package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// GaussianNoise adds zero-mean Gaussian noise of standard deviation
// Stddev in training (a regulariser), like keras.layers.GaussianNoise; at
// inference it passes the input through.
type GaussianNoise struct {
	Stddev float64 // required, >= 0
	Base
}

// ClassName returns "GaussianNoise".
func (*GaussianNoise) ClassName() string { return "GaussianNoise" }

// Build checks the deviation; the shape is unchanged.
func (l *GaussianNoise) Build(inputs []backend.Shape) (backend.Shape, error) {
	if l.Stddev < 0 || math.IsNaN(l.Stddev) {
		return nil, fmt.Errorf("stddev must be >= 0, got %v", l.Stddev)
	}
	return sameShape(inputs)
}

// Call adds noise in training.
func (l *GaussianNoise) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training || l.Stddev == 0 {
		return x
	}
	return ctx.B.Add(x, ctx.B.Mul(ctx.B.RandomNormal(x.Shape()), ctx.B.Scalar(l.Stddev)))
}

// GetConfig returns Keras's config.
func (l *GaussianNoise) GetConfig() (serialization.Config, error) {
	return serialization.Config{"stddev": l.Stddev, "seed": nil}, nil
}

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

func (*GaussianNoise) withoutBuildConfig()   {}
func (*GaussianDropout) withoutBuildConfig() {}

func init() {
	mustRegister("GaussianNoise", func(r *serialization.Reader) (Layer, error) {
		r.Ignore("seed")
		return &GaussianNoise{Stddev: r.Float("stddev", 0)}, nil
	})
	mustRegister("GaussianDropout", func(r *serialization.Reader) (Layer, error) {
		r.Ignore("seed")
		return &GaussianDropout{Rate: r.Float("rate", 0)}, nil
	})
}
