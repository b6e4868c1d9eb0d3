package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/internal/resample"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
	"github.com/kerasgo/kerasgo/keras/utils/boundingboxes"
)

// Resizing resizes images (batch, height, width, channels) to (batch,
// Height, Width, channels), like keras.layers.Resizing, with the
// interpolation of Keras's JAX backend. Its input images may have any
// height and width (-1 in the Input's shape).
type Resizing struct {
	Height, Width int // required
	// Interpolation is "bilinear" (the default when empty), "nearest",
	// "bicubic", "lanczos3" or "lanczos5".
	Interpolation string
	// CropToAspectRatio resizes the largest centred window with the
	// target's aspect ratio instead of stretching the image.
	CropToAspectRatio bool
	// PadToAspectRatio pads the image with FillValue, evenly on both
	// sides, to the target's aspect ratio before resizing.
	PadToAspectRatio bool
	FillValue        float64
	// Antialias widens the kernel when downsampling, as a low-pass filter.
	Antialias bool
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "Resizing".
func (*Resizing) ClassName() string { return "Resizing" }

func (l *Resizing) interpolation() string {
	if l.Interpolation == "" {
		return "bilinear"
	}
	return l.Interpolation
}

// Build checks the settings; the output has the target size.
func (l *Resizing) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := oneImage(inputs)
	if err != nil {
		return nil, err
	}
	if err := checkTargetSize(l.Height, l.Width); err != nil {
		return nil, err
	}
	if l.CropToAspectRatio && l.PadToAspectRatio {
		return nil, fmt.Errorf("only one of CropToAspectRatio and PadToAspectRatio can be set")
	}
	if err := checkInterpolation(l.interpolation()); err != nil {
		return nil, err
	}
	return backend.Shape{in[0], l.Height, l.Width, in[3]}, nil
}

// Call crops or pads to the aspect ratio if asked, then resizes.
func (l *Resizing) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.resize(ctx.B, in[0], l.interpolation())
}

// resize crops or pads x to the aspect ratio if asked, then resizes it
// with this interpolation.
func (l *Resizing) resize(b backend.Builder, x backend.Value, interpolation string) backend.Value {
	s := x.Shape()
	switch {
	case l.CropToAspectRatio:
		top, left, h, w := resample.AspectCrop(s[1], s[2], l.Height, l.Width)
		x = sliceImages(b, x, top, left, h, w)
	case l.PadToAspectRatio:
		x = padToAspect(b, x, l.Height, l.Width, l.FillValue)
	}
	return ops.Resize(b, x, l.Height, l.Width, ops.ResizeOptions{Interpolation: interpolation, Antialias: l.Antialias})
}

// BuildImageData checks the boxes, which get the new size.
func (l *Resizing) BuildImageData(in ImageDataShapes) (ImageDataShapes, error) {
	return buildMovingPixels(l, in, l.BoundingBoxFormat)
}

// CallImageData resizes the images (and their masks, at the nearest
// pixel) and moves their boxes, as Keras's
// transform_bounding_boxes: stretched, or scaled and shifted as the crop
// or the padding to the aspect ratio moves them (in float32, as Keras),
// clipped to the new size (a box left with no area gets label -1); a
// padding box (all -1, or all 0) becomes zeros.
func (l *Resizing) CallImageData(ctx *Context, d ImageData) ImageData {
	b, s := ctx.B, d.Images.Shape()
	d.Images = l.Call(ctx, []backend.Value{d.Images})
	d = withMasks(d, func(m backend.Value) backend.Value { return l.resize(b, m, "nearest") })
	if d.Boxes == nil {
		return d
	}
	format := boundingboxes.Format(l.BoundingBoxFormat)
	padding := b.Add(ops.All(b, ops.Equal(b, d.Boxes, b.Scalar(-1)), ops.Axis(-1), ops.KeepDims()), ops.All(b, ops.Equal(b, d.Boxes, b.Scalar(0)), ops.Axis(-1), ops.KeepDims()))
	boxes := boundingboxes.ConvertFormat(b, d.Boxes, format, boundingboxes.XYXY, imageSize(s))
	sx, sy, dx, dy := resizeBoxMap(s[1], s[2], l.Height, l.Width, l.CropToAspectRatio, l.PadToAspectRatio)
	boxes = scaleShiftBoxes(b, boxes, sx, sy, dx, dy)
	target := &boundingboxes.Size{Height: float64(l.Height), Width: float64(l.Width)}
	boxes, d.BoxLabels = boundingboxes.ClipToImageSize(b, boxes, d.BoxLabels, target, boundingboxes.XYXY)
	boxes = ops.Where(b, b.Greater(padding, b.Scalar(0)), b.Scalar(0), boxes)
	d.Boxes = boundingboxes.ConvertFormat(b, boxes, boundingboxes.XYXY, format, target)
	return d
}

// resizeBoxMap is how Keras's Resizing moves xyxy boxes of an inH×inW
// image resized to h×w: x·sx + dx, y·sy + dy, computed in float32 as
// Keras computes it (floor division for the offsets).
func resizeBoxMap(inH, inW, h, w int, crop, pad bool) (sx, sy, dx, dy float64) {
	fh, fw := float32(inH), float32(inW)
	floor := func(v float32) float64 { return math.Floor(float64(v)) }
	switch {
	case pad:
		r := min(float32(h)/fh, float32(w)/fw)
		return float64(r), float64(r), floor((float32(w) - fw*r) / 2), floor((float32(h) - fh*r) / 2)
	case crop:
		source := fw / fh
		newW, newH := float32(w), float32(h)
		if source > float32(float64(w)/float64(h)) {
			newW = float32(h) * source
		} else {
			newH = float32(w) / source
		}
		return float64(newW / fw), float64(newH / fh), -floor((newW - float32(w)) / 2), -floor((newH - float32(h)) / 2)
	}
	return float64(float32(w) / fw), float64(float32(h) / fh), 0, 0
}

// padToAspect pads images with value to the aspect ratio of (h, w), as
// Keras's pad_to_aspect_ratio: the same number of rows (or columns) on
// both sides.
func padToAspect(b backend.Builder, x backend.Value, h, w int, value float64) backend.Value {
	s := x.Shape()
	height, width := s[1], s[2]
	top, left := resample.AspectPad(height, width, h, w)
	fill := func(shape backend.Shape) backend.Value {
		return b.Constant(filledWith(value, shape.Size()), shape)
	}
	switch {
	case top > 0:
		band := fill(backend.Shape{s[0], top, width, s[3]})
		return b.Concat(1, band, x, band)
	case left > 0:
		band := fill(backend.Shape{s[0], height, left, s[3]})
		return b.Concat(2, band, x, band)
	}
	return x
}

// GetConfig returns Keras's config.
func (l *Resizing) GetConfig() (serialization.Config, error) {
	return serialization.Config{"height": l.Height, "width": l.Width, "interpolation": l.interpolation(),
		"crop_to_aspect_ratio": l.CropToAspectRatio, "pad_to_aspect_ratio": l.PadToAspectRatio,
		"fill_mode": "constant", "fill_value": l.FillValue, "antialias": l.Antialias, "data_format": "channels_last"}, nil
}

// takesUnknownDims: Resizing takes images of any size.
func (*Resizing) takesUnknownDims() {}

func init() {
	mustRegister("Resizing", func(r *serialization.Reader) (Layer, error) {
		l := &Resizing{Height: r.Int("height", 0), Width: r.Int("width", 0), Interpolation: r.String("interpolation", "bilinear"),
			CropToAspectRatio: r.Bool("crop_to_aspect_ratio", false), PadToAspectRatio: r.Bool("pad_to_aspect_ratio", false),
			FillValue: r.Float("fill_value", 0), Antialias: r.Bool("antialias", false)}
		r.Expect("fill_mode", "constant", "Keras's Resizing pads with a constant only")
		expectChannelsLast(r)
		return l, nil
	})
}

// expectChannelsLast refuses Keras's channels_first image layout.
func expectChannelsLast(r *serialization.Reader) {
	r.Expect("data_format", "channels_last", "kerasgo's image layers take channels_last images (batch, height, width, channels)")
}
