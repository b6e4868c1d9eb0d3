package layers

import (
	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Activation applies an activation function, like keras.layers.Activation.
type Activation struct {
	Fn string // "relu", "softmax", "sigmoid", "tanh", "linear"
	Base

	act activations.Func
}

// ClassName returns "Activation".
func (a *Activation) ClassName() string { return "Activation" }

// Build checks the activation name; the shape is unchanged but for glu,
// which halves the last axis.
func (a *Activation) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if a.act, err = activations.Get(a.Fn); err != nil {
		return nil, err
	}
	return activations.OutputShape(a.Fn, in)
}

// Call applies the activation.
func (a *Activation) Call(ctx *Context, inputs []backend.Value) backend.Value {
	return a.act(ctx.B, inputs[0])
}

// GetConfig returns Keras's Activation config.
func (a *Activation) GetConfig() (serialization.Config, error) {
	return serialization.Config{"activation": activationName(a.Fn)}, nil
}

func (a *Activation) withoutBuildConfig() {}

// takesUnknownDims: Activation reads lengths other than its features from its input.
func (*Activation) takesUnknownDims() {}

func init() {
	mustRegister("Activation", func(r *serialization.Reader) (Layer, error) {
		return &Activation{Fn: readActivation(r, "activation")}, nil
	})
}
