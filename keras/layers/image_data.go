package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
	"github.com/kerasgo/kerasgo/keras/utils/boundingboxes"
)

// ImageData is a batch of images with what moves with them: Keras's dict
// {"images", "bounding_boxes": {"boxes", "labels"}, "labels",
// "segmentation_masks"} that its image preprocessing layers take in a
// tf.data pipeline. Every field but Images may be nil (absent).
type ImageData struct {
	// Images is (batch, height, width, channels).
	Images backend.Value
	// Boxes is (batch, boxes, 4), in the layers' BoundingBoxFormat.
	Boxes backend.Value
	// BoxLabels is (batch, boxes): each box's class; -1 marks a box that
	// is padding or has left the image (Keras's clip_to_image_size).
	BoxLabels backend.Value
	// Labels are the images' own labels (batch, ...), which MixUp and
	// CutMix mix as they mix the images.
	Labels backend.Value
	// SegmentationMasks is (batch, height, width, channels), a class per
	// pixel: moved with the pixels, sampled at the nearest pixel.
	SegmentationMasks backend.Value
}

// ImageDataShapes are the shapes of an ImageData's values, nil for an
// absent one.
type ImageDataShapes struct {
	Images, Boxes, BoxLabels, Labels, SegmentationMasks backend.Shape
}

// ImageDataLayer is an image preprocessing layer that transforms the
// data that goes with its images (bounding boxes, labels) with the same
// random draw as the images: Keras's transform_bounding_boxes,
// transform_labels and transform_segmentation_masks. A layer that does
// not implement it leaves labels as they are, and takes bounding boxes
// and segmentation masks only if it changes pixel values without moving
// them (colour, contrast, blur): they pass it unchanged, as in Keras.
type ImageDataLayer interface {
	Layer
	// BuildImageData checks that the layer can transform data of these
	// shapes and returns the output shapes.
	BuildImageData(in ImageDataShapes) (ImageDataShapes, error)
	// CallImageData transforms d, after BuildImageData.
	CallImageData(ctx *Context, d ImageData) ImageData
}

// keepsPixelPlaces is implemented by image layers that change pixel
// values but never move them (colour, contrast, blur, erasing): bounding
// boxes and labels pass them unchanged, as Keras's transform_bounding_boxes
// returns them for these layers.
type keepsPixelPlaces interface{ keepsPixelPlaces() }

// buildImageData builds l for data of these shapes.
func buildImageData(l Layer, in ImageDataShapes) (ImageDataShapes, error) {
	if dl, ok := l.(ImageDataLayer); ok {
		return dl.BuildImageData(in)
	}
	if in.Boxes != nil {
		if _, ok := l.(keepsPixelPlaces); !ok {
			return in, fmt.Errorf("%s moves pixels but kerasgo does not move bounding boxes with it yet: use it without boxes, or one of the layers docs/preprocessing.md lists", Describe(l))
		}
		format := ""
		if bf, ok := l.(boxFormatSetting); ok {
			format = *bf.boxFormat()
		}
		if err := checkBoxShapes(l, in, format); err != nil {
			return in, err
		}
	}
	if in.SegmentationMasks != nil {
		if _, ok := l.(keepsPixelPlaces); !ok {
			return in, fmt.Errorf("%s moves pixels but kerasgo does not move segmentation masks with it yet: use it without masks, or one of the layers docs/preprocessing.md lists", Describe(l))
		}
		if err := checkMaskShapes(in); err != nil {
			return in, err
		}
	}
	out := in
	s, err := l.Build([]backend.Shape{in.Images})
	out.Images = s
	return out, err
}

// buildMovingPixels is BuildImageData of an image layer that moves its
// boxes and masks with its pixels: the shapes checked, the layer built on
// the images, the masks given the images' new height and width.
func buildMovingPixels(l Layer, in ImageDataShapes, format string) (ImageDataShapes, error) {
	if err := checkBoxShapes(l, in, format); err != nil {
		return in, err
	}
	out := in
	var err error
	out.Images, err = l.Build([]backend.Shape{in.Images})
	out.SegmentationMasks = resizedMasks(in, out.Images)
	return out, err
}

// checkMaskShapes checks that segmentation masks cover the images:
// (batch, height, width, channels) of the images' batch, height and
// width.
func checkMaskShapes(in ImageDataShapes) error {
	m, im := in.SegmentationMasks, in.Images
	if m == nil {
		return nil
	}
	if len(m) != 4 || len(im) != 4 || m[0] != im[0] || m[1] != im[1] || m[2] != im[2] {
		return fmt.Errorf("segmentation masks of shape %v for images of shape %v: want (batch, height, width, channels) of the images' batch, height and width", m, im)
	}
	return nil
}

// resizedMasks is the shape of masks after a layer that gives images of
// shape out: the images' batch, height and width, the masks' channels.
func resizedMasks(in ImageDataShapes, out backend.Shape) backend.Shape {
	if in.SegmentationMasks == nil || len(out) != 4 {
		return nil
	}
	return backend.Shape{out[0], out[1], out[2], in.SegmentationMasks[3]}
}

// callImageData transforms d by l, after buildImageData.
func callImageData(ctx *Context, l Layer, d ImageData) ImageData {
	if dl, ok := l.(ImageDataLayer); ok {
		return dl.CallImageData(ctx, d)
	}
	d.Images = l.Call(ctx, []backend.Value{d.Images})
	return d
}

// checkBoxShapes checks the boxes' and box labels' shapes against the
// images' and the layer's box format (needed when boxes are given, as
// Keras requires it).
func checkBoxShapes(l Layer, in ImageDataShapes, format string) error {
	if len(in.Images) != 4 {
		return fmt.Errorf("expected images of shape (batch, height, width, channels), received %v", in.Images)
	}
	if err := checkMaskShapes(in); err != nil {
		return err
	}
	if in.Boxes == nil {
		if in.BoxLabels != nil {
			return fmt.Errorf("box labels without boxes: give Boxes too")
		}
		return nil
	}
	if format == "" {
		return fmt.Errorf("%s was given bounding boxes but has no bounding box format: set BoundingBoxFormat, e.g. \"xyxy\" (Keras's bounding_box_format)", Describe(l))
	}
	if err := boundingboxes.Format(format).Check(); err != nil {
		return fmt.Errorf("bounding box format: %w", err)
	}
	if len(in.Boxes) != 3 || in.Boxes[2] != 4 {
		return fmt.Errorf("boxes of shape %v: want (batch, boxes, 4)", in.Boxes)
	}
	if in.BoxLabels != nil && (len(in.BoxLabels) != 2 || in.BoxLabels[1] != in.Boxes[1]) {
		return fmt.Errorf("box labels of shape %v for boxes of shape %v: want (batch, boxes)", in.BoxLabels, in.Boxes)
	}
	return nil
}

// boxFormatSetting is an image preprocessing layer with Keras's
// bounding_box_format setting, which FromConfig reads and Config writes
// for every such layer.
type boxFormatSetting interface{ boxFormat() *string }

// readBoxFormat reads Keras's bounding_box_format, which every image
// preprocessing layer takes (null when unset).
func readBoxFormat(r *serialization.Reader) string {
	f := r.String("bounding_box_format", "")
	if f != "" {
		if err := boundingboxes.Format(f).Check(); err != nil {
			r.Fail("bounding_box_format", "%v", err)
		}
	}
	return f
}

// withBoxFormat adds bounding_box_format to an image layer's config when
// it is set, as Keras's get_config does.
func withBoxFormat(c serialization.Config, format string) serialization.Config {
	if format != "" {
		c["bounding_box_format"] = format
	}
	return c
}

// withMasks applies f to d's segmentation masks, if any, as the layer
// moves the images' pixels (at the nearest pixel: masks hold classes).
func withMasks(d ImageData, f func(masks backend.Value) backend.Value) ImageData {
	if d.SegmentationMasks != nil {
		d.SegmentationMasks = f(d.SegmentationMasks)
	}
	return d
}

// blend is w·x + (1-w)·y: x where a 0/1 weight w is 1, y where it is 0,
// or a mix (MixUp's weights).
func blend(b backend.Builder, w, x, y backend.Value) backend.Value {
	return b.Add(b.Mul(w, x), b.Mul(b.Sub(b.Scalar(1), w), y))
}

// imageSize is the height and width of images of shape s, as the box
// functions take them.
func imageSize(s backend.Shape) *boundingboxes.Size {
	return &boundingboxes.Size{Height: float64(s[1]), Width: float64(s[2])}
}

// Every image preprocessing layer takes Keras's bounding_box_format.
func (l *AugMix) boxFormat() *string       { return &l.BoundingBoxFormat }
func (l *AutoContrast) boxFormat() *string { return &l.BoundingBoxFormat }
func (l *CenterCrop) boxFormat() *string   { return &l.BoundingBoxFormat }
func (l *ContrastLimitedAdaptiveHistogramEqualization) boxFormat() *string {
	return &l.BoundingBoxFormat
}
func (l *CutMix) boxFormat() *string                  { return &l.BoundingBoxFormat }
func (l *Equalization) boxFormat() *string            { return &l.BoundingBoxFormat }
func (l *MixUp) boxFormat() *string                   { return &l.BoundingBoxFormat }
func (l *RandAugment) boxFormat() *string             { return &l.BoundingBoxFormat }
func (l *RandomBrightness) boxFormat() *string        { return &l.BoundingBoxFormat }
func (l *RandomColorDegeneration) boxFormat() *string { return &l.BoundingBoxFormat }
func (l *RandomColorJitter) boxFormat() *string       { return &l.BoundingBoxFormat }
func (l *RandomContrast) boxFormat() *string          { return &l.BoundingBoxFormat }
func (l *RandomCrop) boxFormat() *string              { return &l.BoundingBoxFormat }
func (l *RandomElasticTransform) boxFormat() *string  { return &l.BoundingBoxFormat }
func (l *RandomErasing) boxFormat() *string           { return &l.BoundingBoxFormat }
func (l *RandomFlip) boxFormat() *string              { return &l.BoundingBoxFormat }
func (l *RandomGaussianBlur) boxFormat() *string      { return &l.BoundingBoxFormat }
func (l *RandomGrayscale) boxFormat() *string         { return &l.BoundingBoxFormat }
func (l *RandomHue) boxFormat() *string               { return &l.BoundingBoxFormat }
func (l *RandomInvert) boxFormat() *string            { return &l.BoundingBoxFormat }
func (l *RandomPerspective) boxFormat() *string       { return &l.BoundingBoxFormat }
func (l *RandomPosterization) boxFormat() *string     { return &l.BoundingBoxFormat }
func (l *RandomRotation) boxFormat() *string          { return &l.BoundingBoxFormat }
func (l *RandomSaturation) boxFormat() *string        { return &l.BoundingBoxFormat }
func (l *RandomSharpness) boxFormat() *string         { return &l.BoundingBoxFormat }
func (l *RandomShear) boxFormat() *string             { return &l.BoundingBoxFormat }
func (l *RandomTranslation) boxFormat() *string       { return &l.BoundingBoxFormat }
func (l *RandomZoom) boxFormat() *string              { return &l.BoundingBoxFormat }
func (l *Resizing) boxFormat() *string                { return &l.BoundingBoxFormat }
func (l *Solarization) boxFormat() *string            { return &l.BoundingBoxFormat }

// The image layers that change pixel values without moving them (Keras's
// transform_bounding_boxes returns the boxes as they are).
func (*AutoContrast) keepsPixelPlaces()            {}
func (*Equalization) keepsPixelPlaces()            {}
func (*RandomBrightness) keepsPixelPlaces()        {}
func (*RandomColorDegeneration) keepsPixelPlaces() {}
func (*RandomColorJitter) keepsPixelPlaces()       {}
func (*RandomContrast) keepsPixelPlaces()          {}
func (*RandomErasing) keepsPixelPlaces()           {}
func (*RandomGaussianBlur) keepsPixelPlaces()      {}
func (*RandomGrayscale) keepsPixelPlaces()         {}
func (*RandomHue) keepsPixelPlaces()               {}
func (*RandomInvert) keepsPixelPlaces()            {}
func (*RandomPosterization) keepsPixelPlaces()     {}
func (*RandomSaturation) keepsPixelPlaces()        {}
func (*RandomSharpness) keepsPixelPlaces()         {}
func (*Solarization) keepsPixelPlaces()            {}

// scaleShiftBoxes maps xyxy boxes to x·sx + dx and y·sy + dy.
func scaleShiftBoxes(b backend.Builder, boxes backend.Value, sx, sy, dx, dy float64) backend.Value {
	p := ops.Split(b, boxes, 4, -1)
	x := func(v backend.Value) backend.Value { return b.Add(b.Mul(v, b.Scalar(sx)), b.Scalar(dx)) }
	y := func(v backend.Value) backend.Value { return b.Add(b.Mul(v, b.Scalar(sy)), b.Scalar(dy)) }
	return ops.Concatenate(b, []backend.Value{x(p[0]), y(p[1]), x(p[2]), y(p[3])}, -1)
}

// cropBoxes clips xyxy boxes to the window [left, left+w) × [top, top+h)
// and moves them into it, as Keras's CenterCrop's _get_clipped_bbox.
func cropBoxes(b backend.Builder, boxes backend.Value, top, left, h, w float64) backend.Value {
	p := ops.Split(b, boxes, 4, -1)
	x := func(v backend.Value) backend.Value { return b.Sub(ops.Clip(b, v, left, left+w), b.Scalar(left)) }
	y := func(v backend.Value) backend.Value { return b.Sub(ops.Clip(b, v, top, top+h), b.Scalar(top)) }
	return ops.Concatenate(b, []backend.Value{x(p[0]), y(p[1]), x(p[2]), y(p[3])}, -1)
}
