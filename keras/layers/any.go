package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Any is Keras's keras.ops.any(x, axis, keepdims) over a 0/1 tensor as
// it appears in a functional model's config (Keras 3 writes Masking's
// mask as NotEqual, then Any over the features): 1 where some value along
// Axis is nonzero.
type Any struct {
	Axis     int // negative counts from the end
	KeepDims bool
	Base
}

// ClassName returns "Any".
func (*Any) ClassName() string { return "Any" }

func (l *Any) axis(rank int) int {
	if l.Axis < 0 {
		return rank + l.Axis
	}
	return l.Axis
}

// Build removes (or keeps as 1) the reduced axis.
func (l *Any) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	a := l.axis(len(in))
	if a < 1 || a >= len(in) {
		return nil, fmt.Errorf("axis %d is not a non-batch axis of an input of rank %d", l.Axis, len(in))
	}
	return l.reduced(in, a), nil
}

// reduced is s without axis a, or with it as 1 with KeepDims.
func (l *Any) reduced(s backend.Shape, a int) backend.Shape {
	out := s[:a:a].Clone()
	if l.KeepDims {
		out = append(out, 1)
	}
	return append(out, s[a+1:]...)
}

// Call sums along the axis and compares with 0.
func (l *Any) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	s := x.Shape()
	a := l.axis(len(s))
	y := b.Greater(b.Sum(b.Mul(x, x), a), b.Scalar(0))
	if l.KeepDims {
		y = b.Reshape(y, l.reduced(s, a))
	}
	return y
}

// GetConfig returns Keras's config.
func (l *Any) GetConfig() (serialization.Config, error) {
	return serialization.Config{"axis": l.Axis, "keepdims": l.KeepDims}, nil
}

func (*Any) kerasOperation() {}

// takesUnknownDims: it reads the lengths from its input.
func (*Any) takesUnknownDims() {}

func init() {
	mustRegister("Any", func(r *serialization.Reader) (Layer, error) {
		return &Any{Axis: r.Int("axis", 0), KeepDims: r.Bool("keepdims", false)}, nil
	})
}
