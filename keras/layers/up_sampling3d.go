package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// UpSampling3D repeats each depth slice Size[0] times, each row Size[1]
// times and each column Size[2] times, like keras.layers.UpSampling3D:
// (batch, depth, rows, cols, channels).
type UpSampling3D struct {
	Size [3]int // default (2, 2, 2)
	Base
}

// ClassName returns "UpSampling3D".
func (*UpSampling3D) ClassName() string { return "UpSampling3D" }

func (l *UpSampling3D) size() [3]int {
	if l.Size == ([3]int{}) {
		return [3]int{2, 2, 2}
	}
	return l.Size
}

// Build checks for volumes and a positive size.
func (l *UpSampling3D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneVolume(inputs)
	if err != nil {
		return nil, err
	}
	s := l.size()
	if s[0] < 1 || s[1] < 1 || s[2] < 1 {
		return nil, fmt.Errorf("size must be positive, got %v", s)
	}
	return backend.Shape{in[0], in[1] * s[0], in[2] * s[1], in[3] * s[2], in[4]}, nil
}

// Call repeats the depth slices by broadcasting against ones, then each
// slice's rows and columns as UpSampling2D does.
func (l *UpSampling3D) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	s, d := l.size(), x.Shape()
	ones := backend.Shape{1, 1, s[0], 1}
	y := b.Mul(b.Reshape(x, backend.Shape{d[0], d[1], 1, d[2] * d[3] * d[4]}), b.Constant(filledWith(1, s[0]), ones))
	y = repeatPixels(b, b.Reshape(y, backend.Shape{d[0] * d[1] * s[0], d[2], d[3], d[4]}), [2]int{s[1], s[2]})
	return b.Reshape(y, backend.Shape{d[0], d[1] * s[0], d[2] * s[1], d[3] * s[2], d[4]})
}

// GetConfig returns Keras's config.
func (l *UpSampling3D) GetConfig() (serialization.Config, error) {
	s := l.size()
	return serialization.Config{"size": []any{s[0], s[1], s[2]}, "data_format": "channels_last"}, nil
}

func init() {
	mustRegister("UpSampling3D", func(r *serialization.Reader) (Layer, error) {
		r.Expect("data_format", "channels_last", "kerasgo's layers take channels_last volumes")
		return &UpSampling3D{Size: r.PositiveTriple("size", [3]int{2, 2, 2})}, nil
	})
}
