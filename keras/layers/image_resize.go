package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Image resizing as Keras's JAX backend does it (jax.image.resize, which
// for these kernels agrees with tf.image.resize's half-pixel centres):
// each spatial axis is resampled on its own by a fixed matrix of weights,
// so a resize is two matrix products in the engine, differentiable with
// respect to the image. Nearest-neighbour resizing gathers rows instead.

// resizeInterpolations are the interpolations Keras's Resizing takes on
// every backend, with the kernel of each (nil: nearest).
var resizeInterpolations = map[string]func(x float64) float64{
	"bilinear": func(x float64) float64 { return math.Max(0, 1-math.Abs(x)) },
	"bicubic":  keysCubic,
	"lanczos3": func(x float64) float64 { return lanczos(3, x) },
	"lanczos5": func(x float64) float64 { return lanczos(5, x) },
	"nearest":  nil,
}

// checkInterpolation reports an interpolation Resizing does not know.
func checkInterpolation(name string) error {
	if _, ok := resizeInterpolations[name]; !ok {
		return fmt.Errorf("unknown interpolation %q: use bilinear, nearest, bicubic, lanczos3 or lanczos5", name)
	}
	return nil
}

// keysCubic is Keys's cubic convolution kernel (a = -0.5), as JAX's.
func keysCubic(x float64) float64 {
	x = math.Abs(x)
	switch {
	case x >= 2:
		return 0
	case x >= 1:
		return ((-0.5*x+2.5)*x-4)*x + 2
	}
	return ((1.5*x-2.5)*x)*x + 1
}

// lanczos is the Lanczos kernel of the given radius, as JAX's.
func lanczos(radius, x float64) float64 {
	x = math.Abs(x)
	if x > radius {
		return 0
	}
	if x <= 1e-3 {
		return 1
	}
	return radius * math.Sin(math.Pi*x) * math.Sin(math.Pi*x/radius) / (math.Pi * math.Pi * x * x)
}

// float32Epsilon is NumPy's finfo(float32).eps.
const float32Epsilon = 1.1920929e-07

// resizeWeights is JAX's compute_weight_mat: the (out, in) matrix that
// resamples an axis of length in to length out with the kernel (scaled
// when downsampling with antialias), its columns normalised to sum to 1.
func resizeWeights(in, out int, kernel func(float64) float64, antialias bool) []float64 {
	scale := float64(out) / float64(in)
	invScale := 1 / scale
	kernelScale := 1.0
	if antialias {
		kernelScale = math.Max(invScale, 1)
	}
	w := make([]float64, out*in)
	for i := range out {
		sample := (float64(i)+0.5)*invScale - 0.5
		if sample < -0.5 || sample > float64(in)-0.5 {
			continue
		}
		sum := 0.0
		for j := range in {
			v := kernel(math.Abs(sample-float64(j)) / kernelScale)
			w[i*in+j] = v
			sum += v
		}
		if math.Abs(sum) <= 1000*float32Epsilon {
			for j := range in {
				w[i*in+j] = 0
			}
			continue
		}
		for j := range in {
			w[i*in+j] /= sum
		}
	}
	return w
}

// nearestIndices is JAX's nearest-neighbour resampling of an axis: output
// i takes input floor((i + 0.5) * in / out), computed in float32.
func nearestIndices(in, out int) []float64 {
	idx := make([]float64, out)
	for i := range idx {
		idx[i] = math.Floor(float64(float32((float32(i) + 0.5) * float32(in) / float32(out))))
	}
	return idx
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
	kernel := resizeInterpolations[interpolation]
	return onAxis(b, x, axis, func(v backend.Value) backend.Value {
		if kernel == nil {
			return b.Gather(v, b.Constant(nearestIndices(in, out), backend.Shape{out}))
		}
		return b.MatMul(b.Constant(resizeWeights(in, out, kernel, antialias), backend.Shape{out, in}), v)
	})
}

// resizeImages resizes images (batch, height, width, channels) to
// (batch, h, w, channels).
func resizeImages(b backend.Builder, x backend.Value, h, w int, interpolation string, antialias bool) backend.Value {
	return resizeAxis(b, resizeAxis(b, x, 1, h, interpolation, antialias), 2, w, interpolation, antialias)
}

// aspectCrop is the centred window of an image of size (height, width)
// with the aspect ratio of (h, w), as Keras's crop_to_aspect_ratio and
// smart_resize take it: its start and size along each axis.
func aspectCrop(height, width, h, w int) (top, left, cropH, cropW int) {
	cropH = max(min(height, int(float64(width*h)/float64(w))), 1)
	cropW = max(min(width, int(float64(height*w)/float64(h))), 1)
	return int(float64(height-cropH) / 2), int(float64(width-cropW) / 2), cropH, cropW
}

// sliceImages takes the window (top, left, h, w) of every image.
func sliceImages(b backend.Builder, x backend.Value, top, left, h, w int) backend.Value {
	s := x.Shape()
	if top == 0 && left == 0 && h == s[1] && w == s[2] {
		return x
	}
	return b.Slice(x, []int{0, top, left, 0}, []int{s[0], h, w, s[3]})
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
