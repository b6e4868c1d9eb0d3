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
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
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

func init() {
	mustRegister("Cropping2D", func(r *serialization.Reader) (Layer, error) {
		r.Expect("data_format", "channels_last", "kerasgo's layers take channels_last images")
		return &Cropping2D{Cropping: readPadding2D(r, "cropping", [2][2]int{})}, nil
	})
}
