package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/random"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// MixUp blends each image with another of its batch during training,
// like keras.layers.MixUp: w·x + (1-w)·x[perm], with perm a random
// permutation of the batch and w drawn per image from Beta(Alpha,
// Alpha). Outside training it passes its input through.
//
// Keras's MixUp also mixes the labels when it is given a dict of images
// and labels in a tf.data pipeline. A kerasgo layer sees only the model's
// inputs, so labels are not mixed: in a model, as Keras's MixUp called on
// a tensor, it mixes the images alone.
type MixUp struct {
	// Alpha is the Beta distribution's parameter; zero means Keras's
	// default 0.2.
	Alpha float64
	Base
}

// ClassName returns "MixUp".
func (*MixUp) ClassName() string { return "MixUp" }

func (l *MixUp) alpha() float64 {
	if l.Alpha == 0 {
		return 0.2
	}
	return l.Alpha
}

// Build checks alpha; the shape is unchanged.
func (l *MixUp) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if l.Alpha < 0 {
		return nil, fmt.Errorf("alpha must be positive, got %v", l.Alpha)
	}
	return in.Clone(), nil
}

// Call mixes in training.
func (l *MixUp) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b := ctx.B
	n := x.Shape()[0]
	w := b.Reshape(random.Beta(b, []int{n}, l.alpha(), l.alpha(), random.Stream()), backend.Shape{n, 1, 1, 1})
	other := random.Shuffle(b, x, 0, random.Stream())
	return b.Add(b.Mul(w, x), b.Mul(b.Sub(b.Scalar(1), w), other))
}

// GetConfig returns Keras's config.
func (l *MixUp) GetConfig() (serialization.Config, error) {
	return serialization.Config{"alpha": l.alpha(), "seed": nil, "data_format": "channels_last"}, nil
}

// takesUnknownDims: MixUp takes images of any size.
func (*MixUp) takesUnknownDims() {}

// trainsByDefault: Keras calls MixUp with training=True by default.
func (*MixUp) trainsByDefault() {}

func init() {
	mustRegister("MixUp", func(r *serialization.Reader) (Layer, error) {
		l := &MixUp{Alpha: r.Float("alpha", 0.2)}
		r.Ignore("seed") // decides only which mixes training draws
		expectChannelsLast(r)
		return l, nil
	})
}
