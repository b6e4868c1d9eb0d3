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

func (*GaussianNoise) withoutBuildConfig() {}

func init() {
	mustRegister("GaussianNoise", func(r *serialization.Reader) (Layer, error) {
		r.Ignore("seed")
		return &GaussianNoise{Stddev: r.Float("stddev", 0)}, nil
	})
}

func (*GaussianNoise) takesUnknownDims() {}
