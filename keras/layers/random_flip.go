package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomFlip flips each image with probability 1/2 during training, like
// keras.layers.RandomFlip: left to right (Mode "horizontal"), top to
// bottom ("vertical"), or, with the default "horizontal_and_vertical",
// both at once with one draw per image, as Keras 3 does (a half turn).
// Outside training it passes its input through.
type RandomFlip struct {
	Mode string // "horizontal", "vertical" or "horizontal_and_vertical" (the default when empty)
	Base
}

// ClassName returns "RandomFlip".
func (*RandomFlip) ClassName() string { return "RandomFlip" }

func (l *RandomFlip) mode() string {
	if l.Mode == "" {
		return "horizontal_and_vertical"
	}
	return l.Mode
}

// Build checks the mode; the shape is unchanged.
func (l *RandomFlip) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	switch l.mode() {
	case "horizontal", "vertical", "horizontal_and_vertical":
	default:
		return nil, fmt.Errorf("unknown mode %q: use horizontal, vertical or horizontal_and_vertical", l.Mode)
	}
	return in.Clone(), nil
}

// Call flips in training: the chosen images take their flipped values.
func (l *RandomFlip) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b := ctx.B
	flipped := x
	if l.mode() != "vertical" {
		flipped = reverseAxis(b, flipped, 2)
	}
	if l.mode() != "horizontal" {
		flipped = reverseAxis(b, flipped, 1)
	}
	// Keras flips where uniform <= 0.5; 1 - (u > 0.5) is that.
	flip := b.Sub(b.Scalar(1), b.Greater(b.RandomUniform(backend.Shape{x.Shape()[0], 1, 1, 1}), b.Scalar(0.5)))
	return b.Add(b.Mul(flip, flipped), b.Mul(b.Sub(b.Scalar(1), flip), x))
}

// reverseAxis reverses x along axis.
func reverseAxis(b backend.Builder, x backend.Value, axis int) backend.Value {
	return ops.Flip(b, x, axis)
}

// GetConfig returns Keras's config.
func (l *RandomFlip) GetConfig() (serialization.Config, error) {
	return serialization.Config{"mode": l.mode(), "seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: RandomFlip takes images of any size.
func (*RandomFlip) takesUnknownDims() {}

func init() {
	mustRegister("RandomFlip", func(r *serialization.Reader) (Layer, error) {
		l := &RandomFlip{Mode: r.String("mode", "horizontal_and_vertical")}
		r.Ignore("seed") // decides only which images training flips
		expectChannelsLast(r)
		return l, nil
	})
}

// trainsByDefault: Keras calls RandomFlip with training=True by default.
func (*RandomFlip) trainsByDefault() {}
