package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/random"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// MixUp blends each image with another of its batch during training,
// like keras.layers.MixUp: w·x + (1-w)·x[perm], with perm a random
// permutation of the batch and w drawn per image from Beta(Alpha,
// Alpha). Outside training it passes its input through.
//
// In a model it mixes the images alone, as Keras's MixUp called on a
// tensor. Given labels and bounding boxes (keras.ImageAugmenter,
// ApplyImageData, as Keras's MixUp in a tf.data pipeline), it mixes each
// image's labels with the same weight, w·y + (1-w)·y[perm], and gives
// each image the boxes of both images it mixed, (batch, 2·boxes, 4).
// Keras joins the box labels along the batch axis, which leaves them out
// of step with the boxes; kerasgo joins them along the boxes' axis.
type MixUp struct {
	// Alpha is the Beta distribution's parameter; zero means Keras's
	// default 0.2.
	Alpha float64
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
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
	return l.CallImageData(ctx, ImageData{Images: in[0]}).Images
}

// BuildImageData checks the labels and boxes: labels (batch, classes),
// mixed; each image gets the boxes of both images it mixes.
func (l *MixUp) BuildImageData(in ImageDataShapes) (ImageDataShapes, error) {
	if err := checkBoxShapes(l, in, l.BoundingBoxFormat); err != nil {
		return in, err
	}
	if err := checkMixedLabels(in); err != nil {
		return in, err
	}
	out := in
	if in.Boxes != nil {
		out.Boxes = backend.Shape{in.Boxes[0], 2 * in.Boxes[1], 4}
		if in.BoxLabels != nil {
			out.BoxLabels = backend.Shape{in.BoxLabels[0], 2 * in.BoxLabels[1]}
		}
	}
	_, err := l.Build([]backend.Shape{in.Images})
	return out, err
}

// CallImageData mixes the images and their labels, and joins their
// boxes, in training.
func (l *MixUp) CallImageData(ctx *Context, d ImageData) ImageData {
	x := d.Images
	if !ctx.Training {
		return d
	}
	b := ctx.B
	n := x.Shape()[0]
	w := b.Reshape(random.Beta(b, []int{n}, l.alpha(), l.alpha(), random.Stream()), backend.Shape{n, 1, 1, 1})
	perm := permutation(b, n)
	d.Images = blend(b, w, x, ops.Take(b, x, perm, ops.Axis(0)))
	// Keras blends the masks with the same weights (soft masks).
	d = withMasks(d, func(m backend.Value) backend.Value { return blend(b, w, m, ops.Take(b, m, perm, ops.Axis(0))) })
	if d.Labels != nil {
		wl := b.Reshape(w, backend.Shape{n, 1})
		d.Labels = blend(b, wl, d.Labels, ops.Take(b, d.Labels, perm, ops.Axis(0)))
	}
	if d.Boxes != nil {
		d.Boxes = ops.Concatenate(b, []backend.Value{d.Boxes, ops.Take(b, d.Boxes, perm, ops.Axis(0))}, 1)
	}
	if d.BoxLabels != nil {
		d.BoxLabels = ops.Concatenate(b, []backend.Value{d.BoxLabels, ops.Take(b, d.BoxLabels, perm, ops.Axis(0))}, 1)
	}
	return d
}

// permutation is a random permutation of 0..n-1, as Keras's
// random.shuffle of arange(n) draws it.
func permutation(b backend.Builder, n int) backend.Value {
	order := make([]float64, n)
	for i := range order {
		order[i] = float64(i)
	}
	return random.Shuffle(b, b.Constant(order, backend.Shape{n}), 0, random.Stream())
}

// checkMixedLabels checks labels that MixUp or CutMix mix: (batch,
// classes), one-hot or soft, as Keras reshapes the mix weight to (-1, 1).
func checkMixedLabels(in ImageDataShapes) error {
	if in.Labels == nil {
		return nil
	}
	if len(in.Labels) != 2 || in.Labels[0] != in.Images[0] {
		return fmt.Errorf("labels of shape %v for images of shape %v: want (batch, classes), one-hot or soft (to_categorical), to mix them", in.Labels, in.Images)
	}
	return nil
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
