package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// What Keras's 1-D pooling and reshaping layers share (each is in a file
// of its own: max_pooling1d.go, cropping1d.go, ...): they take sequences
// (batch, steps, channels) and are written as their 2-D versions over a
// one-row image.

// sequence checks a (batch, steps, channels) input.
func sequence(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) != 3 {
		return nil, fmt.Errorf("expected an input of shape (batch, steps, channels), received %v", in)
	}
	return in, nil
}

// sameLength reports whether two lengths can be the same: equal, or one
// of them unknown (-1, Keras's None) until the data comes.
func sameLength(a, b int) bool { return a == b || a < 0 || b < 0 }

// asImage views a sequence as a one-row image and back.
func asImage(b backend.Builder, x backend.Value) backend.Value {
	d := x.Shape()
	return b.Reshape(x, backend.Shape{d[0], 1, d[1], d[2]})
}

func fromImage(b backend.Builder, x backend.Value) backend.Value {
	d := x.Shape()
	return b.Reshape(x, backend.Shape{d[0], d[2], d[3]})
}

// pool1D is what MaxPooling1D and AveragePooling1D share.
type pool1D struct {
	PoolSize int    // default 2
	Strides  int    // default PoolSize
	Padding  string // "valid" (default) or "same"
	Base
}

func (p *pool1D) as2D() (size, strides [2]int) {
	n := p.PoolSize
	if n == 0 {
		n = 2
	}
	s := p.Strides
	if s == 0 {
		s = n
	}
	return [2]int{1, n}, [2]int{1, s}
}

func (p *pool1D) build(inputs []backend.Shape, pool Layer) (backend.Shape, error) {
	in, err := sequence(inputs)
	if err != nil {
		return nil, err
	}
	out, err := pool.Build([]backend.Shape{{in[0], 1, in[1], in[2]}})
	if err != nil {
		return nil, err
	}
	return backend.Shape{in[0], out[2], out[3]}, nil
}

// GetConfig returns Keras's config.
func (p *pool1D) GetConfig() (serialization.Config, error) {
	size, strides := p.as2D()
	padding := p.Padding
	if padding == "" {
		padding = "valid"
	}
	return serialization.Config{"pool_size": []int{size[1]}, "strides": []int{strides[1]}, "padding": padding, "data_format": "channels_last"}, nil
}

func (p *pool1D) withoutBuildConfig() {}

// readPair1D reads Keras's int or (start, end).
func readPair1D(r *serialization.Reader, key string, def [2]int) [2]int {
	v, ok := r.Value(key)
	if !ok || v == nil {
		return def
	}
	if _, isNum := v.(float64); isNum {
		n := r.Int(key, 0)
		return [2]int{n, n}
	}
	return r.Pair(key, def)
}

// readPool1D reads the settings MaxPooling1D and AveragePooling1D share.
func readPool1D(r *serialization.Reader) pool1D {
	r.Expect("data_format", "channels_last", "kerasgo's pooling takes channels_last input")
	p := pool1D{PoolSize: readPositiveOne(r, "pool_size", 2), Padding: r.String("padding", "valid")}
	p.Strides = readPositiveOne(r, "strides", p.PoolSize)
	return p
}

// readGlobal1D reads the settings the global 1-D poolings share.
func readGlobal1D(r *serialization.Reader) {
	r.Expect("data_format", "channels_last", "")
	r.Expect("keepdims", false, "")
}
