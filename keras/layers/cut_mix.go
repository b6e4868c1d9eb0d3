package layers

import (
	"fmt"

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
// the zero value is not: set it. In a model it mixes the images alone.
// Given labels (keras.ImageAugmenter, ApplyImageData, as Keras's CutMix
// in a tf.data pipeline), it mixes each image's labels by the share of
// its pixels it kept: w·y + (1-w)·y[perm], w = 1 - pasted area / image
// area. Bounding boxes it refuses, as Keras does (NotImplementedError).
type CutMix struct {
	Factor      float64    // in [0, 1]
	FactorRange [2]float64 // (lower, upper) instead of Factor, each in [0, 1]
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
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
	return l.CallImageData(ctx, ImageData{Images: in[0]}).Images
}

// BuildImageData checks the labels; CutMix takes no boxes.
func (l *CutMix) BuildImageData(in ImageDataShapes) (ImageDataShapes, error) {
	if in.Boxes != nil {
		return in, fmt.Errorf("CutMix does not transform bounding boxes (nor does Keras's): give it the images and labels alone")
	}
	if err := checkMixedLabels(in); err != nil {
		return in, err
	}
	if err := checkMaskShapes(in); err != nil {
		return in, err
	}
	_, err := l.Build([]backend.Shape{in.Images})
	return in, err
}

// CallImageData pastes the rectangles and mixes the labels by the area
// each image kept, in training.
func (l *CutMix) CallImageData(ctx *Context, d ImageData) ImageData {
	x := d.Images
	if !ctx.Training {
		return d
	}
	b, s := ctx.B, x.Shape()
	f, _ := factorRange(l.Factor, l.FactorRange, 0, 1)
	// One concentration for the batch, as Keras draws it.
	a := b.Add(b.Mul(b.RandomUniform(backend.Shape{1, 1}), b.Scalar(f[1]-f[0])), b.Scalar(f[0]+1e-6))
	w := b.Reshape(random.BetaOf(b, []int{s[0]}, a, a, random.Stream()), backend.Shape{s[0], 1, 1, 1})
	side := b.Sqrt(b.Sub(b.Scalar(1), w))
	rect := boxMask(b, s, side, side)
	perm := permutation(b, s[0])
	d.Images = ops.Where(b, rect, ops.Take(b, x, perm, ops.Axis(0)), x)
	d = withMasks(d, func(m backend.Value) backend.Value { return ops.Where(b, rect, ops.Take(b, m, perm, ops.Axis(0)), m) })
	if d.Labels != nil {
		kept := b.Sub(b.Scalar(1), ops.Mean(b, b.Reshape(rect, backend.Shape{s[0], s[1] * s[2]}), ops.Axis(1), ops.KeepDims()))
		d.Labels = blend(b, kept, d.Labels, ops.Take(b, d.Labels, perm, ops.Axis(0)))
	}
	return d
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
