package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// MaxNumBoundingBoxes gives every image exactly MaxNumber bounding boxes,
// like keras.layers.MaxNumBoundingBoxes: the first MaxNumber of its
// boxes, then boxes and labels of FillValue up to MaxNumber, so that
// batches of images with different numbers of boxes stack. Images and
// labels pass unchanged; given images alone, it passes them through.
type MaxNumBoundingBoxes struct {
	// MaxNumber is the number of boxes each image gets (required).
	MaxNumber int
	// FillValue is the padding's boxes' and labels' value; zero means
	// Keras's default -1 (FillZero pads with 0).
	FillValue int
	// FillZero pads with 0 instead.
	FillZero bool
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format).
	BoundingBoxFormat string
	Base
}

// ClassName returns "MaxNumBoundingBoxes".
func (*MaxNumBoundingBoxes) ClassName() string { return "MaxNumBoundingBoxes" }

func (l *MaxNumBoundingBoxes) fill() int {
	if l.FillZero {
		return 0
	}
	if l.FillValue == 0 {
		return -1
	}
	return l.FillValue
}

// Build checks MaxNumber; images pass unchanged.
func (l *MaxNumBoundingBoxes) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if l.MaxNumber < 1 {
		return nil, fmt.Errorf("max_number must be a positive number of boxes, got %d", l.MaxNumber)
	}
	return in.Clone(), nil
}

// BuildImageData gives the boxes and box labels MaxNumber boxes.
func (l *MaxNumBoundingBoxes) BuildImageData(in ImageDataShapes) (ImageDataShapes, error) {
	if err := checkBoxShapes(l, in, l.BoundingBoxFormat); err != nil {
		return in, err
	}
	if _, err := l.Build([]backend.Shape{in.Images}); err != nil {
		return in, err
	}
	out := in
	if in.Boxes != nil {
		out.Boxes = backend.Shape{in.Boxes[0], l.MaxNumber, 4}
	}
	if in.BoxLabels != nil {
		out.BoxLabels = backend.Shape{in.BoxLabels[0], l.MaxNumber}
	}
	return out, nil
}

// Call passes the images through.
func (l *MaxNumBoundingBoxes) Call(_ *Context, in []backend.Value) backend.Value { return in[0] }

// CallImageData cuts or pads the boxes and their labels to MaxNumber, in
// training and inference alike, as Keras does.
func (l *MaxNumBoundingBoxes) CallImageData(ctx *Context, d ImageData) ImageData {
	b := ctx.B
	fit := func(v backend.Value) backend.Value {
		n := v.Shape()[1]
		if n > l.MaxNumber {
			start := make([]int, len(v.Shape()))
			size := v.Shape().Clone()
			size[1] = l.MaxNumber
			return ops.Slice(b, v, start, size)
		}
		if n < l.MaxNumber {
			widths := make([][2]int, len(v.Shape()))
			widths[1] = [2]int{0, l.MaxNumber - n}
			return ops.Pad(b, v, widths, ops.PadConstant, float64(l.fill()))
		}
		return v
	}
	if d.Boxes != nil {
		d.Boxes = fit(d.Boxes)
	}
	if d.BoxLabels != nil {
		d.BoxLabels = fit(d.BoxLabels)
	}
	return d
}

// GetConfig returns Keras's config.
func (l *MaxNumBoundingBoxes) GetConfig() (serialization.Config, error) {
	return serialization.Config{"max_number": l.MaxNumber, "fill_value": l.fill(), "data_format": "channels_last"}, nil
}

func (l *MaxNumBoundingBoxes) boxFormat() *string { return &l.BoundingBoxFormat }

// takesUnknownDims: MaxNumBoundingBoxes takes images of any size.
func (*MaxNumBoundingBoxes) takesUnknownDims() {}

func init() {
	mustRegister("MaxNumBoundingBoxes", func(r *serialization.Reader) (Layer, error) {
		if !r.Has("max_number") {
			r.Fail("max_number", "is required")
		}
		l := &MaxNumBoundingBoxes{MaxNumber: r.Int("max_number", 0)}
		switch f := r.Int("fill_value", -1); f {
		case 0:
			l.FillZero = true
		case -1:
		default:
			l.FillValue = f
		}
		expectChannelsLast(r)
		return l, nil
	})
}
