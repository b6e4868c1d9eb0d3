package layers

import (
	"github.com/kerasgo/kerasgo/internal/resample"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
	"github.com/kerasgo/kerasgo/keras/utils/boundingboxes"
)

// RandomCrop crops images (batch, height, width, channels) to Height x
// Width, like keras.layers.RandomCrop. In training, when the images are
// larger than the window both ways, it takes the window at a random place,
// the same for every image of a batch, as Keras does. Otherwise (outside
// training, or images too small) it takes the largest centred window with
// the target's aspect ratio and resizes it bilinearly, as Keras documents.
//
// Keras 3.15 differs outside training: its code passes the images through
// uncropped, so that the output does not have the shape the layer
// declares (and a model that goes on from it fails); kerasgo follows
// Keras's documentation there.
type RandomCrop struct {
	Height, Width int // required
	// BoundingBoxFormat is the format of the boxes it is given (Keras's
	// bounding_box_format); needed only with boxes.
	BoundingBoxFormat string
	Base
}

// ClassName returns "RandomCrop".
func (*RandomCrop) ClassName() string { return "RandomCrop" }

// Build checks the settings; the output has the target size.
func (l *RandomCrop) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if err := checkImages(in); err != nil {
		return nil, err
	}
	if err := checkTargetSize(l.Height, l.Width); err != nil {
		return nil, err
	}
	return backend.Shape{in[0], l.Height, l.Width, in[3]}, nil
}

// Call crops.
func (l *RandomCrop) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallImageData(ctx, ImageData{Images: in[0]}).Images
}

// BuildImageData checks the boxes, which get the window's size.
func (l *RandomCrop) BuildImageData(in ImageDataShapes) (ImageDataShapes, error) {
	return buildMovingPixels(l, in, l.BoundingBoxFormat)
}

// CallImageData crops the images and their boxes: each box moved into
// the window, scaled where the window is resized, and clipped to it (a
// box left with no area gets label -1). Keras 3.15's
// transform_bounding_boxes subtracts the window's top from the boxes' x
// and its left from their y, and leaves them as they are outside
// training while it crops the images; kerasgo moves them with the
// pixels.
func (l *RandomCrop) CallImageData(ctx *Context, d ImageData) ImageData {
	b, x := ctx.B, d.Images
	s := x.Shape()
	height, width := s[1], s[2]
	var top, left backend.Value // the window's corner
	var h, w int                // its size before any resizing
	switch {
	case ctx.Training && height > l.Height && width > l.Width:
		var rows backend.Value
		rows, top = randomWindow(b, x, 1, l.Height)
		d.Images, left = randomWindow(b, rows, 2, l.Width)
		h, w = l.Height, l.Width
		d = withMasks(d, func(m backend.Value) backend.Value {
			return sliceAt(b, m, top, left, h, w)
		})
	case ctx.Training:
		// Keras's code: the aspect window's start, the target's length
		// (cut at the edge), resized when that is short.
		t, lf, _, _ := resample.AspectCrop(height, width, l.Height, l.Width)
		h, w = min(l.Height, height-t), min(l.Width, width-lf)
		d.Images = ops.Resize(b, sliceImages(b, x, t, lf, h, w), l.Height, l.Width, ops.ResizeOptions{})
		d = withMasks(d, func(m backend.Value) backend.Value {
			return ops.Resize(b, sliceImages(b, m, t, lf, h, w), l.Height, l.Width, ops.ResizeOptions{Interpolation: "nearest"})
		})
		top, left = b.Scalar(float64(t)), b.Scalar(float64(lf))
	default:
		t, lf, ch, cw := resample.AspectCrop(height, width, l.Height, l.Width)
		h, w = ch, cw
		d.Images = ops.Resize(b, sliceImages(b, x, t, lf, h, w), l.Height, l.Width, ops.ResizeOptions{})
		d = withMasks(d, func(m backend.Value) backend.Value {
			return ops.Resize(b, sliceImages(b, m, t, lf, h, w), l.Height, l.Width, ops.ResizeOptions{Interpolation: "nearest"})
		})
		top, left = b.Scalar(float64(t)), b.Scalar(float64(lf))
	}
	if d.Boxes == nil {
		return d
	}
	format := boundingboxes.Format(l.BoundingBoxFormat)
	p := ops.Split(b, boundingboxes.ConvertFormat(b, d.Boxes, format, boundingboxes.XYXY, imageSize(s)), 4, -1)
	sx, sy := b.Scalar(float64(l.Width)/float64(w)), b.Scalar(float64(l.Height)/float64(h))
	along := func(v, start, scale backend.Value) backend.Value { return b.Mul(b.Sub(v, start), scale) }
	boxes := ops.Concatenate(b, []backend.Value{along(p[0], left, sx), along(p[1], top, sy), along(p[2], left, sx), along(p[3], top, sy)}, -1)
	target := &boundingboxes.Size{Height: float64(l.Height), Width: float64(l.Width)}
	boxes, d.BoxLabels = boundingboxes.ClipToImageSize(b, boxes, d.BoxLabels, target, boundingboxes.XYXY)
	d.Boxes = boundingboxes.ConvertFormat(b, boxes, boundingboxes.XYXY, format, target)
	return d
}

// randomWindow takes size consecutive rows of x along axis from a random
// start, one start for the whole batch: start = trunc(u * (n - size + 1))
// with u uniform in [0, 1), as Keras draws it.
func randomWindow(b backend.Builder, x backend.Value, axis, size int) (window, start backend.Value) {
	n := x.Shape()[axis]
	offsets := make([]float64, size)
	for i := range offsets {
		offsets[i] = float64(i)
	}
	// The start stays below n - size + 1 even where float32 rounds u * k
	// up to k; Gather truncates start + i to start's integer part + i.
	start = b.Minimum(b.Mul(b.RandomUniform(backend.Shape{1}), b.Scalar(float64(n-size+1))), b.Scalar(float64(n-size)+0.5))
	idx := b.Add(b.Constant(offsets, backend.Shape{size}), start)
	return ops.Take(b, x, idx, ops.Axis(axis)), b.Floor(start)
}

// sliceAt takes the h×w window of x whose corner is (top, left), two
// values that randomWindow drew (the rows' and the columns' starts).
func sliceAt(b backend.Builder, x, top, left backend.Value, h, w int) backend.Value {
	at := func(start backend.Value, size int) backend.Value {
		offsets := make([]float64, size)
		for i := range offsets {
			offsets[i] = float64(i)
		}
		return b.Add(b.Constant(offsets, backend.Shape{size}), start)
	}
	return ops.Take(b, ops.Take(b, x, at(top, h), ops.Axis(1)), at(left, w), ops.Axis(2))
}

// GetConfig returns Keras's config.
func (l *RandomCrop) GetConfig() (serialization.Config, error) {
	return serialization.Config{"height": l.Height, "width": l.Width, "seed": nil, "data_format": "channels_last"}, nil
}

func init() {
	mustRegister("RandomCrop", func(r *serialization.Reader) (Layer, error) {
		l := &RandomCrop{Height: r.Int("height", 0), Width: r.Int("width", 0)}
		r.Ignore("seed") // decides only where training crops
		expectChannelsLast(r)
		return l, nil
	})
}

// trainsByDefault: Keras calls RandomCrop with training=True by default.
func (*RandomCrop) trainsByDefault() {}
