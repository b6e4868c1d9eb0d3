package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Equalization equalizes the histogram of each channel during training,
// like keras.layers.Equalization: the values, mapped from ValueRange to
// [0, 255], are counted into Bins bins, and each value is replaced by its
// bin's place in the cumulative count, scaled to [0, 255] and rounded,
// then mapped back. A channel whose values all fall in one bin is left as
// it is. Outside training it passes its input through.
//
// As Keras does, one histogram per channel is counted over the whole
// batch, not per image. The counting builds one-hot vectors, so it holds
// pixels × Bins numbers per channel while it runs.
type Equalization struct {
	// ValueRange is the range of the pixel values; zero means Keras's
	// default (0, 255).
	ValueRange [2]float64
	// Bins is the number of histogram bins; zero means Keras's 256.
	Bins int
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "Equalization".
func (*Equalization) ClassName() string { return "Equalization" }

func (l *Equalization) bins() int {
	if l.Bins == 0 {
		return 256
	}
	return l.Bins
}

// Build checks the settings; the shape is unchanged.
func (l *Equalization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if l.Bins < 0 || l.Bins == 1 {
		return nil, fmt.Errorf("bins must be at least 2, got %d", l.Bins)
	}
	return in.Clone(), checkValueRange(l.ValueRange)
}

// Call equalizes in training.
func (l *Equalization) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b, s := ctx.B, x.Shape()
	bins := l.bins()
	vr := colorRange(l.ValueRange)
	full := [2]float64{0, 255}
	y := toValueRange(b, x, vr, full)
	c, n := s[3], s[0]*s[1]*s[2]
	channels := b.Transpose(b.Reshape(y, backend.Shape{n, c}), 1, 0) // (c, n)
	top := float64(bins - 1)
	index := func(v backend.Value) backend.Value { return b.StopGradient(b.Floor(clip(b, v, 0, top))) }
	// Keras's _custom_histogram_fixed_width, then its lookup's indices.
	counted := index(b.Div(b.Mul(channels, b.Scalar(top)), b.Scalar(255)))
	looked := index(b.Mul(b.Div(channels, b.Scalar(255)), b.Scalar(top)))
	hist := b.Sum(b.OneHot(counted, bins), 1) // (c, bins)
	cdf := ops.Cumsum(b, hist, ops.Axis(1))
	last := b.Slice(cdf, []int{0, bins - 1}, []int{c, 1})
	first := ops.Min(b, ops.Where(b, b.Greater(cdf, b.Scalar(0)), cdf, last), ops.Axis(1), ops.KeepDims()) // the first nonzero count
	den := b.Sub(last, first)
	den = ops.Where(b, ops.Equal(b, den, b.Scalar(0)), b.Scalar(1), den)
	lut := clip(b, ops.Round(b, b.Div(b.Mul(b.Sub(cdf, first), b.Scalar(255)), den), 0), 0, 255)
	eq := ops.TakeAlongAxis(b, lut, looked, 1) // (c, n)
	oneBin := b.Greater(b.Scalar(2), ops.CountNonzero(b, hist, ops.Axis(1), ops.KeepDims()))
	eq = ops.Where(b, oneBin, channels, eq)
	out := b.Reshape(b.Transpose(eq, 1, 0), s.Clone())
	return toValueRange(b, out, full, vr)
}

// GetConfig returns Keras's config.
func (l *Equalization) GetConfig() (serialization.Config, error) {
	vr := colorRange(l.ValueRange)
	return serialization.Config{"bins": l.bins(), "value_range": vr[:], "data_format": "channels_last"}, nil
}

// trainsByDefault: Keras calls Equalization with training=True by default.
func (*Equalization) trainsByDefault() {}

func init() {
	mustRegister("Equalization", func(r *serialization.Reader) (Layer, error) {
		l := &Equalization{ValueRange: sortedValueRange(r), Bins: r.Int("bins", 256)}
		expectChannelsLast(r)
		return l, nil
	})
}
