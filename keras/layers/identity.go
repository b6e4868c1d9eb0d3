package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Identity passes its input through, like keras.layers.Identity.
type Identity struct {
	Base
}

// ClassName returns "Identity".
func (*Identity) ClassName() string { return "Identity" }

// Build keeps the shape.
func (l *Identity) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// Call returns the input.
func (l *Identity) Call(_ *Context, in []backend.Value) backend.Value { return in[0] }

// GetConfig returns Keras's config (no settings).
func (l *Identity) GetConfig() (serialization.Config, error) { return serialization.Config{}, nil }

func (l *Identity) withoutBuildConfig() {}

func init() {
	mustRegister("Identity", func(*serialization.Reader) (Layer, error) { return &Identity{}, nil })
}

func (*Identity) takesUnknownDims() {}
