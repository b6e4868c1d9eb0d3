package layers

import (
	"github.com/kerasgo/kerasgo/internal/resample"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
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
	b, x := ctx.B, in[0]
	s := x.Shape()
	height, width := s[1], s[2]
	switch {
	case ctx.Training && height > l.Height && width > l.Width:
		return randomWindow(b, randomWindow(b, x, 1, l.Height), 2, l.Width)
	case ctx.Training:
		// Keras's code: the aspect window's start, the target's length
		// (cut at the edge), resized when that is short.
		top, left, _, _ := resample.AspectCrop(height, width, l.Height, l.Width)
		h, w := min(l.Height, height-top), min(l.Width, width-left)
		return ops.Resize(b, sliceImages(b, x, top, left, h, w), l.Height, l.Width, ops.ResizeOptions{})
	}
	top, left, h, w := resample.AspectCrop(height, width, l.Height, l.Width)
	return ops.Resize(b, sliceImages(b, x, top, left, h, w), l.Height, l.Width, ops.ResizeOptions{})
}

// randomWindow takes size consecutive rows of x along axis from a random
// start, one start for the whole batch: start = trunc(u * (n - size + 1))
// with u uniform in [0, 1), as Keras draws it.
func randomWindow(b backend.Builder, x backend.Value, axis, size int) backend.Value {
	n := x.Shape()[axis]
	offsets := make([]float64, size)
	for i := range offsets {
		offsets[i] = float64(i)
	}
	// The start stays below n - size + 1 even where float32 rounds u * k
	// up to k; Gather truncates start + i to start's integer part + i.
	start := b.Minimum(b.Mul(b.RandomUniform(backend.Shape{1}), b.Scalar(float64(n-size+1))), b.Scalar(float64(n-size)+0.5))
	idx := b.Add(b.Constant(offsets, backend.Shape{size}), start)
	return ops.Take(b, x, idx, ops.Axis(axis))
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
