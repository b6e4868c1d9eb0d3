package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// PReLU is keras.layers.PReLU: LeakyReLU with a learned slope per input
// element (alpha, initialised to 0), shared along SharedAxes (e.g. {1, 2}
// for one slope per channel of an image).
type PReLU struct {
	SharedAxes []int // axes (batch = 0) along which alpha is shared
	// AlphaRegularizer and AlphaConstraint are alpha's penalty and
	// projection (Keras's alpha_regularizer and alpha_constraint).
	AlphaRegularizer regularizers.Regularizer
	AlphaConstraint  constraints.Constraint
	Base

	alpha *Weight
}

// ClassName returns "PReLU".
func (*PReLU) ClassName() string { return "PReLU" }

// Build creates alpha, of the input's shape without the batch, 1 along
// the shared axes.
func (l *PReLU) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	s := in[1:].Clone()
	for _, a := range l.SharedAxes {
		if a < 1 || a >= len(in) {
			return nil, fmt.Errorf("shared axis %d is out of range for input %v (axes count from 1 after the batch)", a, in)
		}
		s[a-1] = 1
	}
	if l.alpha, err = l.AddWeight("alpha", s, initializers.Constant{}); err != nil {
		return nil, err
	}
	return in.Clone(), regularize(l.alpha, "alpha", l.AlphaRegularizer, l.AlphaConstraint)
}

// Call computes relu(x) - alpha*relu(-x).
func (l *PReLU) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	return b.Sub(b.Relu(x), b.Mul(b.Relu(b.Neg(x)), ctx.Weight(l.alpha)))
}

// GetConfig returns Keras's config.
func (l *PReLU) GetConfig() (serialization.Config, error) {
	var shared any
	if len(l.SharedAxes) > 0 {
		list := make([]any, len(l.SharedAxes))
		for i, a := range l.SharedAxes {
			list[i] = a
		}
		shared = list
	}
	cfg := serialization.Config{"alpha_initializer": initializerObject("zeros"), "shared_axes": shared}
	return cfg, penaltiesConfig(cfg, map[string]regularizers.Regularizer{"alpha": l.AlphaRegularizer}, map[string]constraints.Constraint{"alpha": l.AlphaConstraint})
}

func init() {
	mustRegister("PReLU", func(r *serialization.Reader) (Layer, error) {
		if got := readInitializer(r, "alpha_initializer"); got != "" && got != "zeros" {
			r.Fail("alpha_initializer", "%s is not supported by kerasgo (only zeros)", got)
		}
		return &PReLU{SharedAxes: r.Ints("shared_axes"), AlphaRegularizer: readRegularizer(r, "alpha_regularizer"),
			AlphaConstraint: readConstraint(r, "alpha_constraint")}, nil
	})
}
