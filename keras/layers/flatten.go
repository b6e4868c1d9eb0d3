package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Flatten flattens all but the batch dimension, like keras.layers.Flatten.
type Flatten struct {
	Base
}

// ClassName returns "Flatten".
func (f *Flatten) ClassName() string { return "Flatten" }

// Build returns (batch, product of the other dimensions).
func (f *Flatten) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) < 2 {
		return nil, fmt.Errorf("expected an input with a batch dimension and at least one more, received %v", in)
	}
	return backend.Shape{in[0], in[1:].Size()}, nil
}

// Call reshapes the input.
func (f *Flatten) Call(ctx *Context, inputs []backend.Value) backend.Value {
	s := inputs[0].Shape()
	return ctx.B.Reshape(inputs[0], backend.Shape{s[0], s[1:].Size()})
}

// GetConfig returns Keras's Flatten config.
func (f *Flatten) GetConfig() (serialization.Config, error) {
	return serialization.Config{"data_format": "channels_last"}, nil
}

func init() {
	mustRegister("Flatten", func(r *serialization.Reader) (Layer, error) {
		r.Expect("data_format", "channels_last", "")
		return &Flatten{}, nil
	})
}
