package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/random"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// CutMix pastes a rectangle of another image of its batch into each
// image during training, like keras.layers.CutMix: with perm a random
// permutation of the batch, image i takes image perm[i]'s pixels inside
// a rectangle whose sides are sqrt(1-w) of the image's, placed
// uniformly, w drawn per image from Beta(a, a) and a for the batch from
// the factor's range (plus 1e-6). Outside training it passes its input
// through.
//
// A single Factor f gives the range (0, f); Keras's default is 1, which
// the zero value is not: set it. As with MixUp, labels are not mixed: a
// kerasgo layer sees only the model's inputs.
type CutMix struct {
	Factor      float64    // in [0, 1]
	FactorRange [2]float64 // (lower, upper) instead of Factor, each in [0, 1]
	Base
}

// ClassName returns "CutMix".
func (*CutMix) ClassName() string { return "CutMix" }

// Build checks the factor; the shape is unchanged.
func (l *CutMix) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if _, err := factorRange(l.Factor, l.FactorRange, 0, 1); err != nil {
		return nil, err
	}
	if err := checkImages(in); err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// Call pastes the rectangles in training.
func (l *CutMix) Call(ctx *Context, in []backend.Value) backend.Value {
	x := in[0]
	if !ctx.Training {
		return x
	}
	b, s := ctx.B, x.Shape()
	f, _ := factorRange(l.Factor, l.FactorRange, 0, 1)
	// One concentration for the batch, as Keras draws it.
	a := b.Add(b.Mul(b.RandomUniform(backend.Shape{1, 1}), b.Scalar(f[1]-f[0])), b.Scalar(f[0]+1e-6))
	w := b.Reshape(random.BetaOf(b, []int{s[0]}, a, a, random.Stream()), backend.Shape{s[0], 1, 1, 1})
	side := b.Sqrt(b.Sub(b.Scalar(1), w))
	rect := boxMask(b, s, side, side)
	return ops.Where(b, rect, random.Shuffle(b, x, 0, random.Stream()), x)
}

// GetConfig returns Keras's config.
func (l *CutMix) GetConfig() (serialization.Config, error) {
	f, err := factorRange(l.Factor, l.FactorRange, 0, 1)
	if err != nil {
		return nil, err
	}
	return serialization.Config{"factor": f[:], "seed": nil, "data_format": "channels_last"}, nil
}

// trainsByDefault: Keras calls CutMix with training=True by default.
func (*CutMix) trainsByDefault() {}

func init() {
	mustRegister("CutMix", func(r *serialization.Reader) (Layer, error) {
		f, pair := readFactorOr(r, "factor", 1)
		l := &CutMix{Factor: f, FactorRange: pair}
		r.Ignore("seed") // decides only which rectangles training draws
		expectChannelsLast(r)
		return l, nil
	})
}
