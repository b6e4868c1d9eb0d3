package layers

import (
	"github.com/kerasgo/kerasgo/internal/resample"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
	"github.com/kerasgo/kerasgo/keras/utils/boundingboxes"
)

// CenterCrop takes the centred Height x Width window of images (batch,
// height, width, channels), like keras.layers.CenterCrop. An image
// smaller than the window along an axis is resized instead, as Keras's
// smart_resize does: the largest centred window with the target's aspect
// ratio, resized bilinearly. Its input images may have any size.
type CenterCrop struct {
	Height, Width int // required
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "CenterCrop".
func (*CenterCrop) ClassName() string { return "CenterCrop" }

// Build checks the settings; the output has the target size.
func (l *CenterCrop) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if err := checkTargetSize(l.Height, l.Width); err != nil {
		return nil, err
	}
	return backend.Shape{in[0], l.Height, l.Width, in[3]}, nil
}

// Call crops, or resizes images smaller than the window.
func (l *CenterCrop) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.crop(ctx.B, in[0], "")
}

// crop takes the window of x, or resizes x with this interpolation
// ("" is bilinear) where it is smaller.
func (l *CenterCrop) crop(b backend.Builder, x backend.Value, interpolation string) backend.Value {
	s := x.Shape()
	if s[1] >= l.Height && s[2] >= l.Width {
		return sliceImages(b, x, (s[1]-l.Height)/2, (s[2]-l.Width)/2, l.Height, l.Width)
	}
	top, left, h, w := resample.AspectCrop(s[1], s[2], l.Height, l.Width)
	return ops.Resize(b, sliceImages(b, x, top, left, h, w), l.Height, l.Width, ops.ResizeOptions{Interpolation: interpolation})
}

// BuildImageData checks the boxes, which get the crop's size.
func (l *CenterCrop) BuildImageData(in ImageDataShapes) (ImageDataShapes, error) {
	return buildMovingPixels(l, in, l.BoundingBoxFormat)
}

// CallImageData crops the images, their masks and their boxes (clipped to the crop;
// a box left with no area gets label -1), in training and inference, as
// Keras's transform_bounding_boxes.
func (l *CenterCrop) CallImageData(ctx *Context, d ImageData) ImageData {
	b, s := ctx.B, d.Images.Shape()
	d.Images = l.Call(ctx, []backend.Value{d.Images})
	d = withMasks(d, func(m backend.Value) backend.Value { return l.crop(b, m, "nearest") })
	if d.Boxes == nil {
		return d
	}
	format := boundingboxes.Format(l.BoundingBoxFormat)
	boxes := boundingboxes.ConvertFormat(b, d.Boxes, format, boundingboxes.XYXY, imageSize(s))
	if s[1] >= l.Height && s[2] >= l.Width {
		boxes = cropBoxes(b, boxes, float64((s[1]-l.Height)/2), float64((s[2]-l.Width)/2), float64(l.Height), float64(l.Width))
	} else {
		top, left, h, w := resample.AspectCrop(s[1], s[2], l.Height, l.Width)
		boxes = cropBoxes(b, boxes, float64(top), float64(left), float64(h), float64(w))
		boxes = scaleShiftBoxes(b, boxes, float64(l.Width)/float64(w), float64(l.Height)/float64(h), 0, 0)
	}
	target := &boundingboxes.Size{Height: float64(l.Height), Width: float64(l.Width)}
	boxes, d.BoxLabels = boundingboxes.ClipToImageSize(b, boxes, d.BoxLabels, target, boundingboxes.XYXY)
	d.Boxes = boundingboxes.ConvertFormat(b, boxes, boundingboxes.XYXY, format, target)
	return d
}

// GetConfig returns Keras's config.
func (l *CenterCrop) GetConfig() (serialization.Config, error) {
	return serialization.Config{"height": l.Height, "width": l.Width, "data_format": "channels_last"}, nil
}

// takesUnknownDims: CenterCrop takes images of any size.
func (*CenterCrop) takesUnknownDims() {}

func init() {
	mustRegister("CenterCrop", func(r *serialization.Reader) (Layer, error) {
		l := &CenterCrop{Height: r.Int("height", 0), Width: r.Int("width", 0)}
		expectChannelsLast(r)
		return l, nil
	})
}
