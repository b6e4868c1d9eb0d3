package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/internal/resample"
	"github.com/kerasgo/kerasgo/keras/backend"
)

// Image resizing as Keras's JAX backend does it (jax.image.resize, which
// for these kernels agrees with tf.image.resize's half-pixel centres):
// each spatial axis is resampled on its own by a fixed matrix of weights,
// so a resize is two matrix products in the engine, differentiable with
// respect to the image. Nearest-neighbour resizing gathers rows instead.

// checkInterpolation reports an interpolation Resizing does not know.
func checkInterpolation(name string) error {
	return resample.Check(resample.JAX, name)
}

// onAxis applies f to x with axis moved first (f sees (len, rest...)
// flattened to (len, rest)) and moves it back.
func onAxis(b backend.Builder, x backend.Value, axis int, f func(v backend.Value) backend.Value) backend.Value {
	s := x.Shape()
	perm := []int{axis}
	for d := range s {
		if d != axis {
			perm = append(perm, d)
		}
	}
	moved := b.Transpose(x, perm...)
	ms := moved.Shape()
	flat := b.Reshape(moved, backend.Shape{ms[0], ms[1:].Size()})
	y := f(flat)
	out := append(backend.Shape{y.Shape()[0]}, ms[1:]...)
	inverse := make([]int, len(perm))
	for i, p := range perm {
		inverse[p] = i
	}
	return b.Transpose(b.Reshape(y, out), inverse...)
}

// resizeAxis resamples one axis of x to length out.
func resizeAxis(b backend.Builder, x backend.Value, axis, out int, interpolation string, antialias bool) backend.Value {
	in := x.Shape()[axis]
	if in == out {
		return x
	}
	kernel := resample.JAX[interpolation]
	return onAxis(b, x, axis, func(v backend.Value) backend.Value {
		if kernel == nil {
			idx := resample.NearestIndices(in, out)
			rows := make([]float64, out)
			for i, j := range idx {
				rows[i] = float64(j)
			}
			return b.Gather(v, b.Constant(rows, backend.Shape{out}))
		}
		return b.MatMul(b.Constant(resample.Weights(in, out, *kernel, antialias), backend.Shape{out, in}), v)
	})
}

// resizeImages resizes images (batch, height, width, channels) to
// (batch, h, w, channels).
func resizeImages(b backend.Builder, x backend.Value, h, w int, interpolation string, antialias bool) backend.Value {
	return resizeAxis(b, resizeAxis(b, x, 1, h, interpolation, antialias), 2, w, interpolation, antialias)
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
