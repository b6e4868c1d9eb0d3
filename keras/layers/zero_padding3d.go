package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// ZeroPadding3D adds zeros around volumes (batch, depth, rows, cols,
// channels), like keras.layers.ZeroPadding3D.
//
// Padding is ((front, back), (top, bottom), (left, right)). Unlike
// ZeroPadding2D's, its zero value pads nothing, so that a file's padding
// of 0 is read as 0; Keras's default, one on every side, is
// NewZeroPadding3D(1, 1, 1).
type ZeroPadding3D struct {
	Padding [3][2]int
	Base
}

// NewZeroPadding3D returns a ZeroPadding3D adding depth slices before and
// after, rows above and below and cols left and right (Keras's
// padding=(depth, rows, cols)).
func NewZeroPadding3D(depth, rows, cols int) *ZeroPadding3D {
	return &ZeroPadding3D{Padding: [3][2]int{{depth, depth}, {rows, rows}, {cols, cols}}}
}

// ClassName returns "ZeroPadding3D".
func (*ZeroPadding3D) ClassName() string { return "ZeroPadding3D" }

// Build checks for volumes and non-negative padding.
func (l *ZeroPadding3D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneVolume(inputs)
	if err != nil {
		return nil, err
	}
	out := in.Clone()
	for i, p := range l.Padding {
		if p[0] < 0 || p[1] < 0 {
			return nil, fmt.Errorf("padding must not be negative, got %v", l.Padding)
		}
		if in[i+1] >= 0 {
			out[i+1] = in[i+1] + p[0] + p[1]
		}
	}
	return out, nil
}

// Call pads the depth, rows and columns with zeros.
func (l *ZeroPadding3D) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	for axis, p := range l.Padding {
		x = padAxis(ctx.B, x, axis+1, p[0], p[1])
	}
	return x
}

// GetConfig returns Keras's config.
func (l *ZeroPadding3D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"padding": paddingsConfig(l.Padding[:]), "data_format": "channels_last"}, nil
}

func init() {
	mustRegister("ZeroPadding3D", func(r *serialization.Reader) (Layer, error) {
		r.Expect("data_format", "channels_last", "kerasgo's layers take channels_last volumes")
		l := &ZeroPadding3D{}
		copy(l.Padding[:], readPaddings(r, "padding", [][2]int{{1, 1}, {1, 1}, {1, 1}}))
		return l, nil
	})
}
