package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Softmax is keras.layers.Softmax over the last axis.
type Softmax struct {
	Base
}

// ClassName returns "Softmax".
func (*Softmax) ClassName() string { return "Softmax" }

// Build keeps the shape.
func (l *Softmax) Build(inputs []backend.Shape) (backend.Shape, error) { return sameShape(inputs) }

// Call applies softmax over the last axis.
func (l *Softmax) Call(ctx *Context, in []backend.Value) backend.Value { return ctx.B.Softmax(in[0]) }

// GetConfig returns Keras's config.
func (l *Softmax) GetConfig() (serialization.Config, error) {
	return serialization.Config{"axis": -1}, nil
}

func (*Softmax) withoutBuildConfig() {}

func init() {
	mustRegister("Softmax", func(r *serialization.Reader) (Layer, error) {
		if axis, ok := r.Value("axis"); ok {
			if f, isNum := axis.(float64); !isNum || f != -1 {
				r.Fail("axis", "kerasgo's Softmax layer works over the last axis only (axis=-1), got %v", axis)
			}
		}
		return &Softmax{}, nil
	})
}

func (*Softmax) takesUnknownDims() {}
