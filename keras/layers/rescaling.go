package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Rescaling computes x*Scale + Offset, like keras.layers.Rescaling (e.g.
// Scale 1/255 for pixels).
type Rescaling struct {
	Scale  float64 // Keras requires it; 0 here means 1
	Offset float64
	Base
}

// ClassName returns "Rescaling".
func (*Rescaling) ClassName() string { return "Rescaling" }

func (l *Rescaling) scale() float64 {
	if l.Scale == 0 {
		return 1
	}
	return l.Scale
}

// Build keeps the shape.
func (l *Rescaling) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// Call rescales.
func (l *Rescaling) Call(ctx *Context, in []backend.Value) backend.Value {
	y := ctx.B.Mul(in[0], ctx.B.Scalar(l.scale()))
	if l.Offset != 0 {
		y = ctx.B.Add(y, ctx.B.Scalar(l.Offset))
	}
	return y
}

// GetConfig returns Keras's config.
func (l *Rescaling) GetConfig() (serialization.Config, error) {
	return serialization.Config{"scale": l.scale(), "offset": l.Offset}, nil
}

func init() {
	mustRegister("Rescaling", func(r *serialization.Reader) (Layer, error) {
		l := &Rescaling{Scale: r.Float("scale", 1), Offset: r.Float("offset", 0)}
		if l.Scale == 0 { // an explicit scale of 0 cannot be expressed in the struct
			r.Fail("scale", "0 is not supported by kerasgo")
		}
		return l, nil
	})
}
