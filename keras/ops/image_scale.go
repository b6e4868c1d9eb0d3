package ops

import "github.com/kerasgo/kerasgo/internal/resample"

// scaleAndTranslateKernels are the kernels of Keras's
// image.scale_and_translate by its method names.
var scaleAndTranslateKernels = map[string]*resample.Kernel{
	"linear": &resample.Bilinear, "bilinear": &resample.Bilinear, "trilinear": &resample.Bilinear, "triangle": &resample.Bilinear,
	"cubic": &resample.Bicubic, "bicubic": &resample.Bicubic, "tricubic": &resample.Bicubic,
	"lanczos3": &resample.Lanczos3, "lanczos5": &resample.Lanczos5,
}

// ScaleAndTranslateOptions are image.scale_and_translate's options
// beyond its arguments. NoAntialias is Keras's antialias=False: by
// default, as in Keras, the kernel widens when an axis is downsampled.
type ScaleAndTranslateOptions struct {
	NoAntialias bool
}

// ScaleAndTranslate resamples images of any rank to outputShape, as
// Keras's image.scale_and_translate (jax.image.scale_and_translate):
// along each axis spatialDims[k], a point at x in the input (pixel i's
// centre at i + 0.5) goes to x·scale[k] + translation[k] in the output,
// sampled by method's kernel ("linear", "bilinear", "trilinear" or
// "triangle"; "cubic", "bicubic" or "tricubic", the Keys cubic;
// "lanczos3"; "lanczos5"). An output pixel whose sample falls outside
// the input is 0. The other axes keep their length, which outputShape
// must repeat.
//
// Each axis is one product with a fixed matrix, so the result is
// differentiable in images. kerasgo differs from Keras in one thing:
// scale and translation are Go numbers, fixed when the computation is
// built, where Keras takes tensors and JAX differentiates in them too.
func ScaleAndTranslate(b Builder, images Value, outputShape []int, scale, translation []float64, spatialDims []int, method string, o ScaleAndTranslateOptions) Value {
	const op = "ScaleAndTranslate"
	if missing(b, op, []string{"images"}, images) {
		return b.Fail(nil, b.Err())
	}
	s := images.Shape()
	kernel := scaleAndTranslateKernels[method]
	switch {
	case kernel == nil:
		return failf(b, op, s, "images of shape %v: unknown method %q: use one of linear, bilinear, trilinear, triangle, cubic, bicubic, tricubic, lanczos3, lanczos5", s, method)
	case len(outputShape) != len(s):
		return failf(b, op, s, "images of shape %v: output_shape %v: give one length per axis (%d)", s, outputShape, len(s))
	case len(scale) != len(spatialDims) || len(translation) != len(spatialDims):
		return failf(b, op, s, "images of shape %v: spatial_dims %v, scale %v and translation %v: give one scale and one translation per spatial axis", s, spatialDims, scale, translation)
	}
	dims, ok := axesOf(b, op, images, spatialDims)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	spatial := map[int]bool{}
	for k, d := range dims {
		if spatial[d] {
			return failf(b, op, s, "images of shape %v: spatial_dims %v names axis %d twice", s, spatialDims, d)
		}
		spatial[d] = true
		if outputShape[d] <= 0 {
			return failf(b, op, s, "images of shape %v: output_shape %v: axis %d's length must be positive", s, outputShape, d)
		}
		if !(scale[k] > 0) {
			return failf(b, op, s, "images of shape %v: scale %v: axis %d's scale must be positive", s, scale, d)
		}
	}
	for d := range s {
		if !spatial[d] && outputShape[d] != s[d] {
			return failf(b, op, s, "images of shape %v: output_shape %v changes axis %d (%d to %d), which is not in spatial_dims %v: only spatial axes are resampled", s, outputShape, d, s[d], outputShape[d], spatialDims)
		}
	}
	x := images
	for k, d := range dims {
		in, out := s[d], outputShape[d]
		w := resample.ScaledWeights(in, out, scale[k], translation[k], *kernel, !o.NoAntialias)
		x = onAxis(b, x, d, func(v Value) Value {
			return b.MatMul(b.Constant(w, Shape{out, in}), v)
		})
	}
	return x
}
