package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// UpSampling2D repeats each row Size[0] times and each column Size[1]
// times, like keras.layers.UpSampling2D with interpolation="nearest".
type UpSampling2D struct {
	Size [2]int // default (2, 2)
	Base
}

// ClassName returns "UpSampling2D".
func (*UpSampling2D) ClassName() string { return "UpSampling2D" }

func (l *UpSampling2D) size() [2]int {
	if l.Size == ([2]int{}) {
		return [2]int{2, 2}
	}
	return l.Size
}

// Build checks for images and a positive size.
func (l *UpSampling2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	s := l.size()
	if s[0] < 1 || s[1] < 1 {
		return nil, fmt.Errorf("size must be positive, got %v", s)
	}
	return backend.Shape{in[0], in[1] * s[0], in[2] * s[1], in[3]}, nil
}

// Call repeats rows and columns by broadcasting against ones: (b, h, 1,
// w, 1, c) times (1, 1, sh, 1, sw, 1), reshaped to (b, h*sh, w*sw, c).
func (l *UpSampling2D) Call(ctx *Context, in []backend.Value) backend.Value {
	return repeatPixels(ctx.B, in[0], l.size())
}

// repeatPixels repeats the rows of images s[0] times and their columns
// s[1] times.
func repeatPixels(b backend.Builder, x backend.Value, s [2]int) backend.Value {
	d := x.Shape()
	ones := backend.Shape{1, 1, s[0], 1, s[1], 1}
	y := b.Mul(b.Reshape(x, backend.Shape{d[0], d[1], 1, d[2], 1, d[3]}), b.Constant(filledWith(1, ones.Size()), ones))
	return b.Reshape(y, backend.Shape{d[0], d[1] * s[0], d[2] * s[1], d[3]})
}

// GetConfig returns Keras's config.
func (l *UpSampling2D) GetConfig() (serialization.Config, error) {
	s := l.size()
	return serialization.Config{"size": []any{s[0], s[1]}, "data_format": "channels_last", "interpolation": "nearest"}, nil
}

func filledWith(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func init() {
	mustRegister("UpSampling2D", func(r *serialization.Reader) (Layer, error) {
		r.Expect("data_format", "channels_last", "kerasgo's layers take channels_last images")
		r.Expect("interpolation", "nearest", "kerasgo's UpSampling2D repeats pixels (nearest)")
		return &UpSampling2D{Size: r.PositivePair("size", [2]int{2, 2})}, nil
	})
}
