package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// LeakyReLU is keras.layers.LeakyReLU: x for x >= 0, NegativeSlope*x
// below.
type LeakyReLU struct {
	// NegativeSlope defaults to Keras's 0.3 (note: the "leaky_relu"
	// activation's default is 0.2, as in Keras).
	NegativeSlope float64
	Base
}

// ClassName returns "LeakyReLU".
func (*LeakyReLU) ClassName() string { return "LeakyReLU" }

func (l *LeakyReLU) slope() float64 {
	if l.NegativeSlope == 0 {
		return 0.3
	}
	return l.NegativeSlope
}

// Build checks the slope; the shape is unchanged.
func (l *LeakyReLU) Build(inputs []backend.Shape) (backend.Shape, error) {
	if l.slope() < 0 {
		return nil, fmt.Errorf("negative_slope must be >= 0, got %v", l.NegativeSlope)
	}
	return sameShape(inputs)
}

// Call computes relu(x) - slope*relu(-x).
func (l *LeakyReLU) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	return b.Sub(b.Relu(x), b.Mul(b.Relu(b.Neg(x)), b.Scalar(l.slope())))
}

// GetConfig returns Keras's config.
func (l *LeakyReLU) GetConfig() (serialization.Config, error) {
	return serialization.Config{"negative_slope": l.slope()}, nil
}

func (*LeakyReLU) withoutBuildConfig() {}

func init() {
	mustRegister("LeakyReLU", func(r *serialization.Reader) (Layer, error) {
		slope := r.Float("negative_slope", 0.3)
		if r.Has("alpha") { // Keras 2's name
			slope = r.Float("alpha", 0.3)
		}
		if slope == 0 {
			return &ReLU{}, nil
		}
		return &LeakyReLU{NegativeSlope: slope}, nil
	})
}

func (*LeakyReLU) takesUnknownDims() {}
