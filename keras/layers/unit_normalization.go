package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// UnitNormalization is keras.layers.UnitNormalization: each sample
// divided by its L2 norm over Axis (nil: the last axis), x / max(‖x‖,
// 1e-12), so that it has unit length there (the embeddings a Circle loss
// or a cosine similarity wants). It has no weights and passes a mask on.
type UnitNormalization struct {
	Axis []int
	Base

	axes   []int
	asList bool
}

// ClassName returns "UnitNormalization".
func (*UnitNormalization) ClassName() string { return "UnitNormalization" }

// Build checks the axes; the shape is unchanged.
func (l *UnitNormalization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if l.axes, err = normalizationAxes("UnitNormalization", l.Axis, in); err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// Call normalises, as Keras's ops.normalize(x, axis, order=2, epsilon=1e-12).
func (l *UnitNormalization) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	norm := b.Sqrt(ops.Sum(b, b.Square(x), ops.Axis(l.axes...), ops.KeepDims()))
	return b.Div(x, b.Maximum(norm, b.Scalar(1e-12)))
}

// ComputeMask passes the input's mask on.
func (*UnitNormalization) ComputeMask(_ *Context, _, m []backend.Value) backend.Value {
	return firstMask(m)
}

// GetConfig returns Keras's config.
func (l *UnitNormalization) GetConfig() (serialization.Config, error) {
	return serialization.Config{"axis": axesConfig(l.Axis, l.asList)}, nil
}

func init() {
	mustRegister("UnitNormalization", func(r *serialization.Reader) (Layer, error) {
		l := &UnitNormalization{}
		l.Axis, l.asList = readAxes(r, "axis")
		return l, nil
	})
}

func (*UnitNormalization) takesUnknownDims() {}
