// Package resample computes the weights that resample one axis of an
// image to a new length, as Keras's image resizing does: JAX's
// jax.image.resize (Keras's Resizing layer and its image loaders' resize)
// and PIL's Image.resize (keras.utils.load_img). A resize is separable:
// one (out, in) matrix per axis. The weights are plain numbers, so the
// same matrices serve an engine (keras/layers) and the host (image
// loading).
package resample

import (
	"fmt"
	"math"
)

// Kernel is an interpolation kernel with its support (the distance
// beyond which it is zero).
type Kernel struct {
	Weight  func(x float64) float64
	Support float64
}

// The kernels. Bilinear is the triangle; Bicubic is Keys's cubic with a
// = -0.5 (JAX's and PIL's); Lanczos3 and Lanczos5 are windowed sincs;
// Box and Hamming are PIL's.
var (
	Bilinear = Kernel{func(x float64) float64 { return math.Max(0, 1-math.Abs(x)) }, 1}
	Bicubic  = Kernel{keysCubic, 2}
	Lanczos3 = Kernel{func(x float64) float64 { return lanczos(3, x) }, 3}
	Lanczos5 = Kernel{func(x float64) float64 { return lanczos(5, x) }, 5}
	Box      = Kernel{func(x float64) float64 {
		if x > -0.5 && x <= 0.5 {
			return 1
		}
		return 0
	}, 0.5}
	Hamming = Kernel{hamming, 1}
)

// JAX are the kernels of jax.image.resize by Keras's interpolation names
// (nil for "nearest", which takes pixels instead of weighing them).
var JAX = map[string]*Kernel{
	"bilinear": &Bilinear, "bicubic": &Bicubic, "lanczos3": &Lanczos3, "lanczos5": &Lanczos5, "nearest": nil,
}

// PIL are the kernels of PIL's resize by keras.utils.load_img's
// interpolation names (nil for "nearest").
var PIL = map[string]*Kernel{
	"bilinear": &Bilinear, "bicubic": &Bicubic, "lanczos": &Lanczos3, "box": &Box, "hamming": &Hamming, "nearest": nil,
}

// Check reports an interpolation name missing from kernels.
func Check(kernels map[string]*Kernel, name string) error {
	if _, ok := kernels[name]; ok {
		return nil
	}
	names := make([]string, 0, len(kernels))
	for _, n := range []string{"bilinear", "nearest", "bicubic", "lanczos", "lanczos3", "lanczos5", "box", "hamming"} {
		if _, ok := kernels[n]; ok {
			names = append(names, n)
		}
	}
	return fmt.Errorf("unknown interpolation %q: use one of %v", name, names)
}

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

// hamming is PIL's Hamming filter: a sinc under a Hamming window.
func hamming(x float64) float64 {
	x = math.Abs(x)
	switch {
	case x == 0:
		return 1
	case x >= 1:
		return 0
	}
	x *= math.Pi
	return math.Sin(x) / x * (0.54 + 0.46*math.Cos(x))
}

// float32Epsilon is NumPy's finfo(float32).eps.
const float32Epsilon = 1.1920929e-07

// Weights is the (out, in) matrix, row-major, that resamples an axis of
// length in to length out: output i weighs input j by the kernel at the
// distance between their centres ((i + 0.5) * in/out and j + 0.5), the
// kernel widened by in/out when downsampling with antialias, each row
// normalised to sum to 1. This is JAX's compute_weight_mat, and PIL's
// resampling coefficients (PIL always antialiases).
func Weights(in, out int, k Kernel, antialias bool) []float64 {
	return weights(in, out, float64(in)/float64(out), 0, k, antialias)
}

// ScaledWeights is Weights for JAX's scale_and_translate: output i
// samples the input at ((i + 0.5) - translation) / scale - 0.5, and an
// output whose sample falls outside the input is zero. Weights is the
// case scale = out/in, translation 0.
func ScaledWeights(in, out int, scale, translation float64, k Kernel, antialias bool) []float64 {
	return weights(in, out, 1/scale, translation, k, antialias)
}

// weights is the matrix of Weights and ScaledWeights by the inverse
// scale.
func weights(in, out int, invScale, translation float64, k Kernel, antialias bool) []float64 {
	kernelScale := 1.0
	if antialias {
		kernelScale = math.Max(invScale, 1)
	}
	w := make([]float64, out*in)
	for i := range out {
		sample := (float64(i)+0.5)*invScale - translation*invScale - 0.5
		if sample < -0.5 || sample > float64(in)-0.5 {
			continue
		}
		sum := 0.0
		for j := range in {
			v := k.Weight(math.Abs(sample-float64(j)) / kernelScale)
			w[i*in+j] = v
			sum += v
		}
		if math.Abs(sum) <= 1000*float32Epsilon {
			clear(w[i*in : (i+1)*in])
			continue
		}
		for j := range in {
			w[i*in+j] /= sum
		}
	}
	return w
}

// NearestIndices is JAX's nearest-neighbour resampling of an axis:
// output i takes input floor((i + 0.5) * in / out), computed in float32
// as JAX does.
func NearestIndices(in, out int) []int {
	idx := make([]int, out)
	for i := range idx {
		idx[i] = int(math.Floor(float64(float32((float32(i) + 0.5) * float32(in) / float32(out)))))
	}
	return idx
}

// AspectCrop is the centred window of an image of size (height, width)
// with the aspect ratio of (h, w), as Keras's crop_to_aspect_ratio and
// smart_resize take it: its start and size along each axis.
func AspectCrop(height, width, h, w int) (top, left, cropH, cropW int) {
	cropH = max(min(height, int(float64(width*h)/float64(w))), 1)
	cropW = max(min(width, int(float64(height*w)/float64(h))), 1)
	return int(float64(height-cropH) / 2), int(float64(width-cropW) / 2), cropH, cropW
}

// AspectPad is how many rows (top) or columns (left) Keras's
// pad_to_aspect_ratio adds on each side of an image of size (height,
// width) to reach the aspect ratio of (h, w); one of them is 0.
func AspectPad(height, width, h, w int) (top, left int) {
	padH := max(height, int(float64(width*h)/float64(w)))
	padW := max(width, int(float64(height*w)/float64(h)))
	top, left = int(float64(padH-height)/2), int(float64(padW-width)/2)
	if top > 0 {
		left = 0
	}
	return top, left
}

// PILCoefficients are PIL's resampling coefficients for an axis of
// length in, from in0 to in1 (a box within it), to length out: for each
// output, the first input it reads and the weights of the inputs from
// there (Resample.c's precompute_coeffs).
func PILCoefficients(in int, in0, in1 float64, out int, k Kernel) (first []int, weights [][]float64) {
	scale := float64(float32(in1)-float32(in0)) / float64(out) // PIL's box is float32
	filterScale := math.Max(scale, 1)
	support := k.Support * filterScale
	ss := 1 / filterScale
	first, weights = make([]int, out), make([][]float64, out)
	for i := range out {
		center := float64(float32(in0)) + (float64(i)+0.5)*scale
		lo := max(int(center-support+0.5), 0)
		hi := min(int(center+support+0.5), in)
		w := make([]float64, max(hi-lo, 0))
		sum := 0.0
		for x := range w {
			w[x] = k.Weight((float64(x+lo) - center + 0.5) * ss)
			sum += w[x]
		}
		if sum != 0 {
			for x := range w {
				w[x] /= sum
			}
		}
		first[i], weights[i] = lo, w
	}
	return first, weights
}
