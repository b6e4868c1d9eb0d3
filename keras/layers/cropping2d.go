package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Cropping2D removes rows and columns at the edges of images (batch,
// height, width, channels), like keras.layers.Cropping2D (U-Net skip
// connections crop the encoder's features to the decoder's size).
type Cropping2D struct {
	// Cropping is ((top, bottom), (left, right)); the zero value crops
	// nothing, as Keras's default.
	Cropping [2][2]int
	Base
}

// ClassName returns "Cropping2D".
func (*Cropping2D) ClassName() string { return "Cropping2D" }

// Build checks that something is left.
func (l *Cropping2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) != 4 {
		return nil, fmt.Errorf("expected images of shape (batch, height, width, channels), received %v", in)
	}
	c := l.Cropping
	for _, v := range []int{c[0][0], c[0][1], c[1][0], c[1][1]} {
		if v < 0 {
			return nil, fmt.Errorf("cropping must not be negative, got %v", c)
		}
	}
	h, w := in[1]-c[0][0]-c[0][1], in[2]-c[1][0]-c[1][1]
	if h < 1 || w < 1 {
		return nil, fmt.Errorf("cropping %v leaves nothing of an input of shape %v", c, in)
	}
	return backend.Shape{in[0], h, w, in[3]}, nil
}

// Call takes the inner block.
func (l *Cropping2D) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	d, c := x.Shape(), l.Cropping
	return ctx.B.Slice(x, []int{0, c[0][0], c[1][0], 0}, []int{d[0], d[1] - c[0][0] - c[0][1], d[2] - c[1][0] - c[1][1], d[3]})
}

// GetConfig returns Keras's config.
func (l *Cropping2D) GetConfig() (serialization.Config, error) {
	c := l.Cropping
	return serialization.Config{"cropping": []any{[]any{c[0][0], c[0][1]}, []any{c[1][0], c[1][1]}}, "data_format": "channels_last"}, nil
}

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
	mustRegister("Cropping2D", func(r *serialization.Reader) (Layer, error) {
		r.Expect("data_format", "channels_last", "kerasgo's layers take channels_last images")
		return &Cropping2D{Cropping: readPadding2D(r, "cropping", [2][2]int{})}, nil
	})
	mustRegister("Permute", func(r *serialization.Reader) (Layer, error) {
		return &Permute{Dims: r.Ints("dims")}, nil
	})
}
