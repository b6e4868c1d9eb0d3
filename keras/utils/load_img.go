package utils

import (
	"fmt"
	"image"

	"github.com/kerasgo/kerasgo/internal/imaging"
)

// LoadImgOptions are keras.utils.load_img's arguments.
type LoadImgOptions struct {
	// ColorMode is "rgb" (the default when empty), "rgba" or "grayscale".
	ColorMode string
	// TargetSize is the (height, width) to resize to; zero keeps the
	// image's size.
	TargetSize [2]int
	// Interpolation is PIL's resampling filter for TargetSize: "nearest"
	// (the default when empty), "bilinear", "bicubic", "hamming", "box"
	// or "lanczos".
	Interpolation string
	// KeepAspectRatio resizes the largest centred window with the
	// target's aspect ratio instead of stretching the image.
	KeepAspectRatio bool
}

// LoadImg reads an image file (PNG, JPEG, GIF's first frame, BMP) as
// keras.utils.load_img does: converted to the colour mode as PIL
// converts (a *image.RGBA with opaque pixels for "rgb", a *image.NRGBA
// for "rgba", a *image.Gray for "grayscale", or *image.Gray16 for a
// 16-bit grey file), and resized as PIL resizes when TargetSize is set.
// ImgToArray turns it into an Array.
func LoadImg(path string, opts LoadImgOptions) (image.Image, error) {
	mode := opts.ColorMode
	if mode == "" {
		mode = "rgb"
	}
	filter := opts.Interpolation
	if filter == "" {
		filter = "nearest"
	}
	if opts.TargetSize[0] < 0 || opts.TargetSize[1] < 0 || (opts.TargetSize[0] == 0) != (opts.TargetSize[1] == 0) {
		return nil, fmt.Errorf("LoadImg: target size %v: give a positive (height, width), or zero to keep the size", opts.TargetSize)
	}
	img, err := imaging.Open(path)
	if err != nil {
		return nil, fmt.Errorf("LoadImg: %w", err)
	}
	if img, err = imaging.Convert(img, mode); err != nil {
		return nil, fmt.Errorf("LoadImg %s: %w", path, err)
	}
	h, w := opts.TargetSize[0], opts.TargetSize[1]
	b := img.Bounds()
	if h == 0 || (b.Dx() == w && b.Dy() == h) {
		return img, nil
	}
	if _, wide := img.(*image.Gray16); wide {
		return nil, fmt.Errorf("LoadImg %s: resizing a 16-bit grey image is not supported: load it without TargetSize and resize the array", path)
	}
	var box *[4]float64
	if opts.KeepAspectRatio {
		width, height := b.Dx(), b.Dy()
		cropH, cropW := min(height, width*h/w), min(width, height*w/h)
		top, left := (height-cropH)/2, (width-cropW)/2
		box = &[4]float64{float64(left), float64(top), float64(left + cropW), float64(top + cropH)}
	}
	out, err := imaging.ResizePIL(img, w, h, filter, box)
	if err != nil {
		return nil, fmt.Errorf("LoadImg %s: %w", path, err)
	}
	return out, nil
}
