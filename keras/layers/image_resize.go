package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/internal/resample"
	"github.com/kerasgo/kerasgo/keras/backend"
)

// Image layers resize with ops.Resize (Keras's JAX resizing).

// checkInterpolation reports an interpolation Resizing does not know.
func checkInterpolation(name string) error {
	return resample.Check(resample.JAX, name)
}

// sliceImages takes the window (top, left, h, w) of every image.
func sliceImages(b backend.Builder, x backend.Value, top, left, h, w int) backend.Value {
	s := x.Shape()
	if top == 0 && left == 0 && h == s[1] && w == s[2] {
		return x
	}
	return b.Slice(x, []int{0, top, left, 0}, []int{s[0], h, w, s[3]})
}

// oneImage is one for a layer of images: the one input must be a batch
// of channels_last images (batch, height, width, channels).
func oneImage(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err == nil && len(in) != 4 {
		err = fmt.Errorf("expected images of shape (batch, height, width, channels), received %v", in)
	}
	return in, err
}

// checkTargetSize reports a target image size that is not positive.
func checkTargetSize(h, w int) error {
	if h < 1 || w < 1 {
		return fmt.Errorf("height and width must be positive, got %d and %d", h, w)
	}
	return nil
}

// checkImages reports an input that is not a batch of channels_last
// images with known height and width.
func checkImages(in backend.Shape) error {
	if len(in) != 4 {
		return fmt.Errorf("expected images of shape (batch, height, width, channels), received %v", in)
	}
	if in[1] < 1 || in[2] < 1 {
		return fmt.Errorf("images %v need a known height and width", in)
	}
	return nil
}
