package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Concatenate joins its inputs along an axis, like
// keras.layers.Concatenate (U-Net skip connections, multi-input models):
// layers.Apply(&layers.Concatenate{}, a, b) joins along the last axis.
type Concatenate struct {
	Base
	// Axis is the axis to join along, counted with the batch dimension
	// as 0; negative counts from the end. The zero value is Keras's
	// default, -1 (the last axis); axis 0 (the batch) cannot be joined.
	Axis int
}

// ClassName returns "Concatenate".
func (*Concatenate) ClassName() string { return "Concatenate" }

func (c *Concatenate) axis() int {
	if c.Axis == 0 {
		return -1
	}
	return c.Axis
}

// Build checks that the inputs match except along the axis.
func (c *Concatenate) Build(inputs []backend.Shape) (backend.Shape, error) {
	if len(inputs) < 2 {
		return nil, fmt.Errorf("expects at least 2 inputs, received %d", len(inputs))
	}
	out, err := backend.ConcatShape(c.axis(), inputs...)
	if err != nil {
		return nil, fmt.Errorf("requires inputs with matching shapes except for the concatenation axis %d; received input shapes %v", c.axis(), inputs)
	}
	return out, nil
}

// Call joins the inputs.
func (c *Concatenate) Call(ctx *Context, in []backend.Value) backend.Value {
	return ctx.B.Concat(c.axis(), in...)
}

// GetConfig returns Keras's config: the axis.
func (c *Concatenate) GetConfig() (serialization.Config, error) {
	return serialization.Config{"axis": c.axis()}, nil
}

func init() {
	mustRegister("Concatenate", func(r *serialization.Reader) (Layer, error) {
		return &Concatenate{Axis: r.Int("axis", -1)}, nil
	})
}

func (*Concatenate) takesUnknownDims() {}
