package layers

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// ELU is keras.layers.ELU: x for x > 0, Alpha*(exp(x) - 1) below.
type ELU struct {
	Alpha float64 // default 1
	Base
}

// ClassName returns "ELU".
func (*ELU) ClassName() string { return "ELU" }

func (l *ELU) alpha() float64 {
	if l.Alpha == 0 {
		return 1
	}
	return l.Alpha
}

// Build keeps the shape.
func (l *ELU) Build(inputs []backend.Shape) (backend.Shape, error) { return sameShape(inputs) }

// Call applies elu.
func (l *ELU) Call(ctx *Context, in []backend.Value) backend.Value {
	return activations.ELU(ctx.B, in[0], l.alpha())
}

// GetConfig returns Keras's config.
func (l *ELU) GetConfig() (serialization.Config, error) {
	return serialization.Config{"alpha": l.alpha()}, nil
}

func (*ELU) withoutBuildConfig() {}

func init() {
	mustRegister("ELU", func(r *serialization.Reader) (Layer, error) {
		a := r.Float("alpha", 1)
		if a == 0 || math.IsNaN(a) {
			r.Fail("alpha", "an alpha of %v is not supported by kerasgo", a)
		}
		return &ELU{Alpha: a}, nil
	})
}

func (*ELU) takesUnknownDims() {}
