package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
	"github.com/kerasgo/kerasgo/keras/utils/boundingboxes"
)

// RandomFlip flips each image with probability 1/2 during training, like
// keras.layers.RandomFlip: left to right (Mode "horizontal"), top to
// bottom ("vertical"), or, with the default "horizontal_and_vertical",
// both at once with one draw per image, as Keras 3 does (a half turn).
// Outside training it passes its input through.
//
// Given bounding boxes (keras.ImageAugmenter, ApplyImageData), it flips
// each image's boxes with the image, as Keras's transform_bounding_boxes
// does: through rel_xyxy, then clipped to the image (a box left with no
// area gets label -1).
type RandomFlip struct {
	Mode string // "horizontal", "vertical" or "horizontal_and_vertical" (the default when empty)
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
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
	return l.CallImageData(ctx, ImageData{Images: in[0]}).Images
}

// BuildImageData checks the boxes; the shapes are unchanged.
func (l *RandomFlip) BuildImageData(in ImageDataShapes) (ImageDataShapes, error) {
	return buildMovingPixels(l, in, l.BoundingBoxFormat)
}

// CallImageData flips the chosen images and their boxes, in training.
func (l *RandomFlip) CallImageData(ctx *Context, d ImageData) ImageData {
	x := d.Images
	if !ctx.Training {
		return d
	}
	b := ctx.B
	// Keras flips where uniform <= 0.5; 1 - (u > 0.5) is that.
	s := x.Shape()
	flip := b.Sub(b.Scalar(1), b.Greater(b.RandomUniform(backend.Shape{s[0], 1, 1, 1}), b.Scalar(0.5)))
	flipChosen := func(v backend.Value) backend.Value {
		flipped := v
		if l.mode() != "vertical" {
			flipped = reverseAxis(b, flipped, 2)
		}
		if l.mode() != "horizontal" {
			flipped = reverseAxis(b, flipped, 1)
		}
		return blend(b, flip, flipped, v)
	}
	d.Images = flipChosen(x)
	d = withMasks(d, flipChosen)
	if d.Boxes == nil {
		return d
	}
	size := imageSize(s)
	format := boundingboxes.Format(l.BoundingBoxFormat)
	boxes := boundingboxes.ConvertFormat(b, d.Boxes, format, boundingboxes.RelXYXY, size)
	perImage := b.Reshape(flip, backend.Shape{s[0], 1, 1})
	if l.mode() != "vertical" {
		p := ops.Split(b, boxes, 4, -1)
		one := b.Scalar(1)
		boxes = blend(b, perImage, ops.Concatenate(b, []backend.Value{b.Sub(one, p[2]), p[1], b.Sub(one, p[0]), p[3]}, -1), boxes)
	}
	if l.mode() != "horizontal" {
		p := ops.Split(b, boxes, 4, -1)
		one := b.Scalar(1)
		boxes = blend(b, perImage, ops.Concatenate(b, []backend.Value{p[0], b.Sub(one, p[3]), p[2], b.Sub(one, p[1])}, -1), boxes)
	}
	// Keras clips the rel_xyxy boxes as pixels ("xyxy", the image's size).
	boxes, d.BoxLabels = boundingboxes.ClipToImageSize(b, boxes, d.BoxLabels, size, boundingboxes.XYXY)
	d.Boxes = boundingboxes.ConvertFormat(b, boxes, boundingboxes.RelXYXY, format, size)
	return d
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
