package layers

import (
	"github.com/kerasgo/kerasgo/internal/resample"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// CenterCrop takes the centred Height x Width window of images (batch,
// height, width, channels), like keras.layers.CenterCrop. An image
// smaller than the window along an axis is resized instead, as Keras's
// smart_resize does: the largest centred window with the target's aspect
// ratio, resized bilinearly. Its input images may have any size.
type CenterCrop struct {
	Height, Width int // required
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
	b, x := ctx.B, in[0]
	s := x.Shape()
	if s[1] >= l.Height && s[2] >= l.Width {
		return sliceImages(b, x, (s[1]-l.Height)/2, (s[2]-l.Width)/2, l.Height, l.Width)
	}
	top, left, h, w := resample.AspectCrop(s[1], s[2], l.Height, l.Width)
	return ops.Resize(b, sliceImages(b, x, top, left, h, w), l.Height, l.Width, ops.ResizeOptions{})
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
