package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Permute reorders the axes after the batch, like keras.layers.Permute:
// Dims is a permutation of 1..rank-1 (e.g. {2, 1} swaps the two axes of
// (batch, steps, features)).
type Permute struct {
	Dims []int
	Base
}

// ClassName returns "Permute".
func (*Permute) ClassName() string { return "Permute" }

// Build checks the permutation.
func (l *Permute) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(l.Dims) != len(in)-1 {
		return nil, fmt.Errorf("dims %v must be a permutation of the %d axes after the batch of input %v", l.Dims, len(in)-1, in)
	}
	out := backend.Shape{in[0]}
	seen := map[int]bool{}
	for _, d := range l.Dims {
		if d < 1 || d >= len(in) || seen[d] {
			return nil, fmt.Errorf("dims %v must be a permutation of 1..%d (axis 0 is the batch)", l.Dims, len(in)-1)
		}
		seen[d] = true
		out = append(out, in[d])
	}
	return out, nil
}

// Call transposes.
func (l *Permute) Call(ctx *Context, in []backend.Value) backend.Value {
	return ctx.B.Transpose(in[0], append([]int{0}, l.Dims...)...)
}

// GetConfig returns Keras's config.
func (l *Permute) GetConfig() (serialization.Config, error) {
	dims := make([]any, len(l.Dims))
	for i, d := range l.Dims {
		dims[i] = d
	}
	return serialization.Config{"dims": dims}, nil
}

func init() {
	mustRegister("Permute", func(r *serialization.Reader) (Layer, error) {
		return &Permute{Dims: r.Ints("dims")}, nil
	})
}

func (*Permute) takesUnknownDims() {}
