package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// AutoContrast stretches each channel of each image to the whole value
// range, like keras.layers.AutoContrast: its lowest value becomes
// ValueRange's low end and its highest the high end. A channel with one
// value throughout is left as it is. Unlike the random layers it applies
// in training and at inference alike, as Keras's does.
type AutoContrast struct {
	// ValueRange is the range of the pixel values; zero means Keras's
	// default (0, 255).
	ValueRange [2]float64
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "AutoContrast".
func (*AutoContrast) ClassName() string { return "AutoContrast" }

// Build checks the value range; the shape is unchanged.
func (l *AutoContrast) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	return in.Clone(), checkValueRange(l.ValueRange)
}

// Call stretches the contrast.
func (l *AutoContrast) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	b := ctx.B
	vr := colorRange(l.ValueRange)
	full := [2]float64{0, 255}
	y := toValueRange(b, x, vr, full)
	low := ops.Min(b, y, ops.Axis(1, 2), ops.KeepDims())
	high := ops.Max(b, y, ops.Axis(1, 2), ops.KeepDims())
	// Keras divides by high - low and keeps the input where that gives
	// NaN; the same result, without a NaN in the gradient.
	flat := b.Equal(high, low)
	width := ops.Where(b, flat, b.Scalar(1), b.Sub(high, low))
	y = clip(b, b.Mul(b.Sub(y, low), b.Div(b.Scalar(255), width)), 0, 255)
	return ops.Where(b, flat, x, toValueRange(b, y, full, vr))
}

// GetConfig returns Keras's config.
func (l *AutoContrast) GetConfig() (serialization.Config, error) {
	vr := colorRange(l.ValueRange)
	return serialization.Config{"value_range": vr[:], "data_format": "channels_last"}, nil
}

// takesUnknownDims: AutoContrast takes images of any size.
func (*AutoContrast) takesUnknownDims() {}

// trainsByDefault: Keras calls AutoContrast with training=True by default.
func (*AutoContrast) trainsByDefault() {}

func init() {
	mustRegister("AutoContrast", func(r *serialization.Reader) (Layer, error) {
		l := &AutoContrast{ValueRange: sortedValueRange(r)}
		expectChannelsLast(r)
		return l, nil
	})
}
