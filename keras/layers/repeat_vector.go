package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RepeatVector repeats its input (batch, features) N times, giving
// (batch, N, features), like keras.layers.RepeatVector.
type RepeatVector struct {
	N int // required, positive
	Base
}

// ClassName returns "RepeatVector".
func (*RepeatVector) ClassName() string { return "RepeatVector" }

// Build checks for (batch, features) and a positive N.
func (l *RepeatVector) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) != 2 {
		return nil, fmt.Errorf("expected an input of shape (batch, features), received %v", in)
	}
	if l.N < 1 {
		return nil, fmt.Errorf("n must be positive, got %d", l.N)
	}
	return backend.Shape{in[0], l.N, in[1]}, nil
}

// Call broadcasts (batch, 1, features) against ones of (1, N, 1).
func (l *RepeatVector) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	d := x.Shape()
	return b.Mul(b.Reshape(x, backend.Shape{d[0], 1, d[1]}), b.Constant(filledWith(1, l.N), backend.Shape{1, l.N, 1}))
}

// GetConfig returns Keras's config.
func (l *RepeatVector) GetConfig() (serialization.Config, error) {
	return serialization.Config{"n": l.N}, nil
}

func init() {
	mustRegister("RepeatVector", func(r *serialization.Reader) (Layer, error) {
		return &RepeatVector{N: r.Int("n", 0)}, nil
	})
}
