package utils

import (
	"image"

	"github.com/kerasgo/kerasgo/keras"

	"github.com/kerasgo/kerasgo/internal/imaging"
)

// ImgToArray returns an image's pixel values as an Array of shape
// (height, width, channels) in [0, 255], keras.utils.img_to_array: 1
// channel for a *image.Gray (or *image.Gray16, in [0, 65535]), 4 for a
// *image.NRGBA (LoadImg's "rgba"), 3 for any other image (its colours,
// alpha dropped). Stack arrays of one size into a batch for Predict.
func ImgToArray(img image.Image) keras.Array {
	p := imaging.Floats(img)
	return keras.Array{Shape: []int{p.Height, p.Width, p.Channels}, Data: p.Data}
}
