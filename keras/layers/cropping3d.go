package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Cropping3D removes depth slices, rows and columns at the edges of
// volumes (batch, depth, rows, cols, channels), like
// keras.layers.Cropping3D.
//
// Cropping is ((front, back), (top, bottom), (left, right)). Its zero
// value crops nothing; Keras's default, one on every side, is
// NewCropping3D(1, 1, 1).
type Cropping3D struct {
	Cropping [3][2]int
	Base
}

// NewCropping3D returns a Cropping3D removing depth slices at the front
// and back, rows at the top and bottom and cols at the left and right
// (Keras's cropping=(depth, rows, cols)).
func NewCropping3D(depth, rows, cols int) *Cropping3D {
	return &Cropping3D{Cropping: [3][2]int{{depth, depth}, {rows, rows}, {cols, cols}}}
}

// ClassName returns "Cropping3D".
func (*Cropping3D) ClassName() string { return "Cropping3D" }

// Build checks that something is left.
func (l *Cropping3D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneVolume(inputs)
	if err != nil {
		return nil, err
	}
	out := in.Clone()
	for i, c := range l.Cropping {
		if c[0] < 0 || c[1] < 0 {
			return nil, fmt.Errorf("cropping must not be negative, got %v", l.Cropping)
		}
		if out[i+1] = in[i+1] - c[0] - c[1]; out[i+1] < 1 {
			return nil, fmt.Errorf("cropping %v leaves nothing of an input of shape %v", l.Cropping, in)
		}
	}
	return out, nil
}

// Call takes the inner block.
func (l *Cropping3D) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	d, c := x.Shape(), l.Cropping
	begin, size := []int{0, c[0][0], c[1][0], c[2][0], 0}, d.Clone()
	for i := range c {
		size[i+1] -= c[i][0] + c[i][1]
	}
	return ctx.B.Slice(x, begin, size)
}

// GetConfig returns Keras's config.
func (l *Cropping3D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"cropping": paddingsConfig(l.Cropping[:]), "data_format": "channels_last"}, nil
}

func init() {
	mustRegister("Cropping3D", func(r *serialization.Reader) (Layer, error) {
		r.Expect("data_format", "channels_last", "kerasgo's layers take channels_last volumes")
		l := &Cropping3D{}
		copy(l.Cropping[:], readPaddings(r, "cropping", [][2]int{{1, 1}, {1, 1}, {1, 1}}))
		return l, nil
	})
}
