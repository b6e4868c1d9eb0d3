package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// ZeroPadding1D adds zero steps at the start and end, like
// keras.layers.ZeroPadding1D.
type ZeroPadding1D struct {
	Padding [2]int // (start, end); the zero value is Keras's default, (1, 1)
	Base
}

// ClassName returns "ZeroPadding1D".
func (*ZeroPadding1D) ClassName() string { return "ZeroPadding1D" }

func (l *ZeroPadding1D) padding() [2]int {
	if l.Padding == ([2]int{}) {
		return [2]int{1, 1}
	}
	return l.Padding
}

// Build adds the padding to the steps.
func (l *ZeroPadding1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := sequence(inputs)
	if err != nil {
		return nil, err
	}
	p := l.padding()
	if p[0] < 0 || p[1] < 0 {
		return nil, fmt.Errorf("padding must not be negative, got %v", p)
	}
	steps := in[1] + p[0] + p[1]
	if in[1] < 0 { // any length
		steps = -1
	}
	return backend.Shape{in[0], steps, in[2]}, nil
}

// Call pads.
func (l *ZeroPadding1D) Call(ctx *Context, in []backend.Value) backend.Value {
	p := l.padding()
	return padAxis(ctx.B, in[0], 1, p[0], p[1])
}

// GetConfig returns Keras's config.
func (l *ZeroPadding1D) GetConfig() (serialization.Config, error) {
	p := l.padding()
	return serialization.Config{"padding": []any{p[0], p[1]}}, nil
}

func init() {
	mustRegister("ZeroPadding1D", func(r *serialization.Reader) (Layer, error) {
		r.Expect("data_format", "channels_last", "kerasgo's layers take channels_last input") // Keras 3.11 on writes it
		return &ZeroPadding1D{Padding: readPair1D(r, "padding", [2]int{1, 1})}, nil
	})
}

func (*ZeroPadding1D) takesUnknownDims() {}
