package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Cropping1D removes steps at the start and end, like
// keras.layers.Cropping1D.
type Cropping1D struct {
	Cropping [2]int // (start, end); the zero value is Keras's default, (1, 1)
	Base
}

// ClassName returns "Cropping1D".
func (*Cropping1D) ClassName() string { return "Cropping1D" }

func (l *Cropping1D) cropping() [2]int {
	if l.Cropping == ([2]int{}) {
		return [2]int{1, 1}
	}
	return l.Cropping
}

// Build checks that steps are left.
func (l *Cropping1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := sequence(inputs)
	if err != nil {
		return nil, err
	}
	c := l.cropping()
	if c[0] < 0 || c[1] < 0 || in[1] >= 0 && in[1]-c[0]-c[1] < 1 {
		return nil, fmt.Errorf("cropping %v leaves nothing of an input of shape %v", c, in)
	}
	if in[1] < 0 { // any length: checked when the data comes (Call)
		return in.Clone(), nil
	}
	return backend.Shape{in[0], in[1] - c[0] - c[1], in[2]}, nil
}

// Call takes the middle steps.
func (l *Cropping1D) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	d, c := x.Shape(), l.cropping()
	if d[1]-c[0]-c[1] < 1 { // a sequence of any length that came too short
		return ctx.B.Fail(backend.Shape{d[0], 1, d[2]}, fmt.Errorf("cropping %v leaves nothing of a sequence of %d steps", c, d[1]))
	}
	return ctx.B.Slice(x, []int{0, c[0], 0}, []int{d[0], d[1] - c[0] - c[1], d[2]})
}

// GetConfig returns Keras's config.
func (l *Cropping1D) GetConfig() (serialization.Config, error) {
	c := l.cropping()
	return serialization.Config{"cropping": []any{c[0], c[1]}}, nil
}

func init() {
	mustRegister("Cropping1D", func(r *serialization.Reader) (Layer, error) {
		return &Cropping1D{Cropping: readPair1D(r, "cropping", [2]int{1, 1})}, nil
	})
}

func (*Cropping1D) takesUnknownDims() {}
