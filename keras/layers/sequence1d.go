package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// The 1-D pooling and reshaping layers of Keras, for sequences (batch,
// steps, channels), written as their 2-D versions over a one-row image.

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

// MaxPooling1D takes the maximum over windows of steps, like
// keras.layers.MaxPooling1D.
type MaxPooling1D struct{ pool1D }

// ClassName returns "MaxPooling1D".
func (*MaxPooling1D) ClassName() string { return "MaxPooling1D" }

func (p *MaxPooling1D) pool() *MaxPooling2D {
	size, strides := p.as2D()
	return &MaxPooling2D{PoolSize: size, Strides: strides, Padding: p.Padding}
}

// Build computes the pooled shape.
func (p *MaxPooling1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return p.build(inputs, p.pool())
}

// Call pools.
func (p *MaxPooling1D) Call(ctx *Context, in []backend.Value) backend.Value {
	return fromImage(ctx.B, p.pool().Call(ctx, []backend.Value{asImage(ctx.B, in[0])}))
}

// AveragePooling1D averages windows of steps, like
// keras.layers.AveragePooling1D ("same" averages only the steps inside
// the sequence).
type AveragePooling1D struct{ pool1D }

// ClassName returns "AveragePooling1D".
func (*AveragePooling1D) ClassName() string { return "AveragePooling1D" }

func (p *AveragePooling1D) pool() *AveragePooling2D {
	size, strides := p.as2D()
	return &AveragePooling2D{PoolSize: size, Strides: strides, Padding: p.Padding}
}

// Build computes the pooled shape.
func (p *AveragePooling1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	return p.build(inputs, p.pool())
}

// Call pools.
func (p *AveragePooling1D) Call(ctx *Context, in []backend.Value) backend.Value {
	return fromImage(ctx.B, p.pool().Call(ctx, []backend.Value{asImage(ctx.B, in[0])}))
}

// GlobalAveragePooling1D averages over the steps, like
// keras.layers.GlobalAveragePooling1D: (batch, steps, channels) to
// (batch, channels).
type GlobalAveragePooling1D struct{ Base }

// ClassName returns "GlobalAveragePooling1D".
func (*GlobalAveragePooling1D) ClassName() string { return "GlobalAveragePooling1D" }

// Build drops the steps.
func (l *GlobalAveragePooling1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := sequence(inputs)
	if err != nil {
		return nil, err
	}
	return backend.Shape{in[0], in[2]}, nil
}

// Call averages; with a mask, over the data steps only (Keras's
// sum(x*mask)/sum(mask)).
func (l *GlobalAveragePooling1D) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	mask := ctx.Mask(0)
	if mask == nil {
		return b.Mean(in[0], 1)
	}
	s := in[0].Shape()
	m := b.Reshape(mask, backend.Shape{s[0], s[1], 1})
	return b.Div(b.Sum(b.Mul(in[0], m), 1), b.Sum(m, 1))
}

// GetConfig returns Keras's config.
func (l *GlobalAveragePooling1D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"data_format": "channels_last", "keepdims": false}, nil
}

// GlobalMaxPooling1D takes the maximum over the steps, like
// keras.layers.GlobalMaxPooling1D.
type GlobalMaxPooling1D struct{ Base }

// ClassName returns "GlobalMaxPooling1D".
func (*GlobalMaxPooling1D) ClassName() string { return "GlobalMaxPooling1D" }

// Build drops the steps.
func (l *GlobalMaxPooling1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := sequence(inputs)
	if err != nil {
		return nil, err
	}
	return backend.Shape{in[0], in[2]}, nil
}

// Call takes the maximum as a pool over the whole row.
func (l *GlobalMaxPooling1D) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	d := x.Shape()
	y := b.MaxPool2D(asImage(b, x), backend.PoolOptions{Size: [2]int{1, d[1]}, Strides: [2]int{1, d[1]}})
	return b.Reshape(y, backend.Shape{d[0], d[2]})
}

// GetConfig returns Keras's config.
func (l *GlobalMaxPooling1D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"data_format": "channels_last", "keepdims": false}, nil
}

func (*GlobalAveragePooling1D) withoutBuildConfig() {}
func (*GlobalMaxPooling1D) withoutBuildConfig()     {}

// UpSampling1D repeats each step Size times, like keras.layers.UpSampling1D.
type UpSampling1D struct {
	Size int // default 2
	Base
}

// ClassName returns "UpSampling1D".
func (*UpSampling1D) ClassName() string { return "UpSampling1D" }

// Build multiplies the steps.
func (l *UpSampling1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := sequence(inputs)
	if err != nil {
		return nil, err
	}
	if l.Size < 0 {
		return nil, fmt.Errorf("size must be positive, got %d", l.Size)
	}
	return backend.Shape{in[0], in[1] * l.size(), in[2]}, nil
}

func (l *UpSampling1D) size() int {
	if l.Size == 0 {
		return 2
	}
	return l.Size
}

// Call repeats by broadcasting (batch, steps, 1, channels) against ones.
func (l *UpSampling1D) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	d, s := x.Shape(), l.size()
	y := b.Mul(b.Reshape(x, backend.Shape{d[0], d[1], 1, d[2]}), b.Constant(filledWith(1, s), backend.Shape{1, 1, s, 1}))
	return b.Reshape(y, backend.Shape{d[0], d[1] * s, d[2]})
}

// GetConfig returns Keras's config.
func (l *UpSampling1D) GetConfig() (serialization.Config, error) {
	return serialization.Config{"size": l.size()}, nil
}

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
	return backend.Shape{in[0], in[1] + p[0] + p[1], in[2]}, nil
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

// Cropping1D removes steps at the start and end, like
// keras.layers.Cropping1D.
type Cropping1D struct {
	Cropping [2]int // (start, end); the zero value is Keras's default, (1, 1)
	Base
}

// ClassName returns "Cropping1D".
func (*Cropping1D) ClassName() string { return "Cropping1D" }

func (l *Cropping1D) cropping() [2]int {
	if l.Cropping == ([2]int{}) {
		return [2]int{1, 1}
	}
	return l.Cropping
}

// Build checks that steps are left.
func (l *Cropping1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := sequence(inputs)
	if err != nil {
		return nil, err
	}
	c := l.cropping()
	if c[0] < 0 || c[1] < 0 || in[1]-c[0]-c[1] < 1 {
		return nil, fmt.Errorf("cropping %v leaves nothing of an input of shape %v", c, in)
	}
	return backend.Shape{in[0], in[1] - c[0] - c[1], in[2]}, nil
}

// Call takes the middle steps.
func (l *Cropping1D) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	d, c := x.Shape(), l.cropping()
	return ctx.B.Slice(x, []int{0, c[0], 0}, []int{d[0], d[1] - c[0] - c[1], d[2]})
}

// GetConfig returns Keras's config.
func (l *Cropping1D) GetConfig() (serialization.Config, error) {
	c := l.cropping()
	return serialization.Config{"cropping": []any{c[0], c[1]}}, nil
}

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

func init() {
	pool := func(r *serialization.Reader) pool1D {
		r.Expect("data_format", "channels_last", "kerasgo's pooling takes channels_last input")
		p := pool1D{PoolSize: readPositiveOne(r, "pool_size", 2), Padding: r.String("padding", "valid")}
		p.Strides = readPositiveOne(r, "strides", p.PoolSize)
		return p
	}
	mustRegister("MaxPooling1D", func(r *serialization.Reader) (Layer, error) { return &MaxPooling1D{pool(r)}, nil })
	mustRegister("AveragePooling1D", func(r *serialization.Reader) (Layer, error) { return &AveragePooling1D{pool(r)}, nil })
	global := func(r *serialization.Reader) {
		r.Expect("data_format", "channels_last", "")
		r.Expect("keepdims", false, "")
	}
	mustRegister("GlobalAveragePooling1D", func(r *serialization.Reader) (Layer, error) { global(r); return &GlobalAveragePooling1D{}, nil })
	mustRegister("GlobalMaxPooling1D", func(r *serialization.Reader) (Layer, error) { global(r); return &GlobalMaxPooling1D{}, nil })
	mustRegister("UpSampling1D", func(r *serialization.Reader) (Layer, error) { return &UpSampling1D{Size: r.Int("size", 2)}, nil })
	mustRegister("ZeroPadding1D", func(r *serialization.Reader) (Layer, error) {
		r.Expect("data_format", "channels_last", "kerasgo's layers take channels_last input") // Keras 3.11 on writes it
		return &ZeroPadding1D{Padding: readPair1D(r, "padding", [2]int{1, 1})}, nil
	})
	mustRegister("Cropping1D", func(r *serialization.Reader) (Layer, error) {
		return &Cropping1D{Cropping: readPair1D(r, "cropping", [2]int{1, 1})}, nil
	})
}

// takesUnknownDims: GlobalAveragePooling1D reads lengths other than its features from its input.
func (*GlobalAveragePooling1D) takesUnknownDims() {}

// takesUnknownDims: GlobalMaxPooling1D reads lengths other than its features from its input.
func (*GlobalMaxPooling1D) takesUnknownDims() {}
