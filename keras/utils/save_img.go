package utils

import (
	"bytes"
	"fmt"
	"image"
	"io"
	"math"

	"github.com/kerasgo/kerasgo/keras"

	"github.com/kerasgo/kerasgo/internal/imaging"
	"github.com/kerasgo/kerasgo/keras/saving"
)

// SaveImgOptions are keras.utils.save_img's arguments.
type SaveImgOptions struct {
	// NoScale writes the values as they are (clipped to [0, 255])
	// instead of Keras's default scale=True, which maps the array's
	// minimum to 0 and its maximum to 255.
	NoScale bool
}

// SaveImg writes an Array of shape (height, width, channels), channels 1
// (grey), 3 (RGB) or 4 (RGBA), as an image file whose format its
// extension names (.png, .jpg/.jpeg, .gif, .bmp), as
// keras.utils.save_img does. The file is written atomically: a failed
// save leaves no half-written file.
func SaveImg(path string, x keras.Array, opts SaveImgOptions) error {
	if err := x.Validate("the image"); err != nil {
		return fmt.Errorf("SaveImg: %w", err)
	}
	if len(x.Shape) != 3 || (x.Shape[2] != 1 && x.Shape[2] != 3 && x.Shape[2] != 4) {
		return fmt.Errorf("SaveImg: an image is an array of shape (height, width, channels) with 1, 3 or 4 channels, got %v", x.Shape)
	}
	values := floatValues(x)
	lo, hi := 0.0, 1.0
	if !opts.NoScale { // Keras's array_to_img: x - min, then / max * 255
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, v := range values {
			lo, hi = math.Min(lo, float64(v)), math.Max(hi, float64(v))
		}
		hi -= lo
		if hi == 0 {
			hi = 1
		}
		hi /= 255
	}
	h, w, c := x.Shape[0], x.Shape[1], x.Shape[2]
	pix := make([]uint8, len(values))
	for i, v := range values {
		pix[i] = uint8(math.Max(0, math.Min(255, (float64(v)-lo)/hi))) // truncated, as NumPy's astype(uint8)
	}
	var img image.Image
	switch c {
	case 1:
		img = &image.Gray{Pix: pix, Stride: w, Rect: image.Rect(0, 0, w, h)}
	case 3:
		rgba := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range h * w {
			copy(rgba.Pix[4*i:4*i+3], pix[3*i:3*i+3])
			rgba.Pix[4*i+3] = 255
		}
		img = rgba
	default:
		img = &image.NRGBA{Pix: pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
	}
	var buf bytes.Buffer
	if err := imaging.Encode(&buf, path, img); err != nil {
		return fmt.Errorf("SaveImg: %w", err)
	}
	if err := saving.WriteAtomic(path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return fmt.Errorf("SaveImg: %w", err)
	}
	return nil
}

// floatValues returns a's values as floats (token ids converted): what
// SaveImg writes.
func floatValues(a keras.Array) []float32 {
	if a.Ints == nil {
		return a.Data
	}
	out := make([]float32, len(a.Ints))
	for i, v := range a.Ints {
		out[i] = float32(v)
	}
	return out
}
