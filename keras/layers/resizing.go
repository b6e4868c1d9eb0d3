package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/internal/resample"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
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
	b, x := ctx.B, in[0]
	s := x.Shape()
	switch {
	case l.CropToAspectRatio:
		top, left, h, w := resample.AspectCrop(s[1], s[2], l.Height, l.Width)
		x = sliceImages(b, x, top, left, h, w)
	case l.PadToAspectRatio:
		x = padToAspect(b, x, l.Height, l.Width, l.FillValue)
	}
	return ops.Resize(b, x, l.Height, l.Width, ops.ResizeOptions{Interpolation: l.interpolation(), Antialias: l.Antialias})
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
