package utils

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"github.com/kerasgo/kerasgo/keras"
)

// ArrayToImg turns an Array of shape (height, width, channels) into an
// image, keras.utils.array_to_img: 1 channel gives a *image.Gray, 3 an
// *image.RGBA (opaque), 4 an *image.NRGBA. With scale (Keras's default),
// the values are first shifted to start at 0 and divided by their
// maximum, then multiplied by 255; each value is then truncated to a byte,
// as NumPy's astype("uint8") does for values in [0, 256) (values outside
// are clamped, where NumPy's cast wraps around).
func ArrayToImg(x keras.Array, scale bool) (image.Image, error) {
	if len(x.Shape) != 3 {
		return nil, fmt.Errorf("ArrayToImg: expected an image array of rank 3 (height, width, channels), got shape %v", x.Shape)
	}
	h, w, c := x.Shape[0], x.Shape[1], x.Shape[2]
	if c != 1 && c != 3 && c != 4 {
		return nil, fmt.Errorf("ArrayToImg: unsupported channel number %d: want 1, 3 or 4", c)
	}
	if len(x.Data) != h*w*c {
		return nil, fmt.Errorf("ArrayToImg: shape %v holds %d values, the data %d", x.Shape, h*w*c, len(x.Data))
	}
	if c == 1 && !scale {
		for _, f := range x.Data {
			if f > 255 {
				return nil, fmt.Errorf("ArrayToImg: a value %v is above 255, which Keras keeps in a 32-bit integer image (PIL's mode I) and Go's image package has no type for: scale the values (scale true), or divide them first", f)
			}
		}
	}
	v := make([]float32, len(x.Data))
	copy(v, x.Data)
	if scale && len(v) > 0 {
		lo := v[0]
		for _, f := range v {
			lo = min(lo, f)
		}
		hi := float32(0)
		for i := range v {
			v[i] -= lo
			hi = max(hi, v[i])
		}
		for i := range v {
			if hi != 0 {
				v[i] /= hi
			}
			v[i] *= 255
		}
	}
	byteOf := func(f float32) uint8 {
		if math.IsNaN(float64(f)) || f < 0 {
			return 0
		}
		return uint8(min(f, 255))
	}
	r := image.Rect(0, 0, w, h)
	switch c {
	case 1:
		img := image.NewGray(r)
		for i, f := range v {
			img.Pix[i] = byteOf(f)
		}
		return img, nil
	case 3:
		img := image.NewRGBA(r)
		for p := range h * w {
			img.SetRGBA(p%w, p/w, color.RGBA{byteOf(v[3*p]), byteOf(v[3*p+1]), byteOf(v[3*p+2]), 255})
		}
		return img, nil
	}
	img := image.NewNRGBA(r)
	copy(img.Pix, func() []uint8 {
		b := make([]uint8, len(v))
		for i, f := range v {
			b[i] = byteOf(f)
		}
		return b
	}())
	return img, nil
}
