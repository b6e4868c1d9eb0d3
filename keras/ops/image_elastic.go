package ops

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// ElasticTransformOptions are image.elastic_transform's options beyond
// alpha and sigma; the zero value is Keras's default: bilinear,
// "reflect" fill.
type ElasticTransformOptions struct {
	// Interpolation is "bilinear" (when empty) or "nearest".
	Interpolation string
	// FillMode is "reflect" (when empty), "constant" (FillValue),
	// "nearest", "wrap" or "mirror", as AffineTransformOptions's.
	FillMode  string
	FillValue float64
}

func (o ElasticTransformOptions) affine() AffineTransformOptions {
	fill := o.FillMode
	if fill == "" {
		fill = "reflect"
	}
	return AffineTransformOptions{Interpolation: o.Interpolation, FillMode: fill, FillValue: o.FillValue}
}

// ElasticKernelSize is the side of the Gaussian kernel that smooths an
// elastic transform's displacements for sigma: Keras's int(6·sigma) | 1.
func ElasticKernelSize(sigma float64) int { return int(6*sigma) | 1 }

// ElasticTransform displaces every pixel of images (batch, height,
// width, channels), or one image, by a smooth random field, Keras's
// ops.image.elastic_transform: the field is normal noise times sigma per
// pixel and axis, blurred by a Gaussian of sigma (kernel
// ElasticKernelSize(sigma), zero "same" padding), times alpha; output
// pixel (x, y) reads the input at (x + dx, y + dy), sampled as
// AffineTransform samples.
//
// The noise is the computation's stream (b.RandomNormal): kerasgo's ops
// take no seed (keras/random's functions do). Keras's JAX and TensorFlow
// backends draw dx and dy from one seed, so that dx = dy (a diagonal
// displacement); kerasgo draws them apart, as Keras's PyTorch backend
// and the method (Simard et al., 2003) do.
func ElasticTransform(b Builder, images Value, alpha, sigma float64, o ElasticTransformOptions) Value {
	if !(sigma > 0) || math.IsInf(sigma, 0) || math.IsNaN(alpha) || math.IsInf(alpha, 0) {
		return failf(b, "ElasticTransform", nil, "alpha %v must be finite and sigma %v positive", alpha, sigma)
	}
	return ElasticTransformBy(b, images, b.Scalar(alpha), b.Scalar(sigma), ElasticKernelSize(sigma), o)
}

// ElasticTransformBy is ElasticTransform with alpha and sigma computed in
// the step (scalars: one for the batch, as Keras's layer draws them), and
// the kernel's side, which a step fixes when it is built, given: an odd
// number, ElasticKernelSize of the largest sigma the step can take.
func ElasticTransformBy(b Builder, images, alpha, sigma Value, kernelSize int, o ElasticTransformOptions) Value {
	const op = "ElasticTransform"
	if missing(b, op, []string{"images", "alpha", "sigma"}, images, alpha, sigma) {
		return b.Fail(nil, b.Err())
	}
	x, back, ok := batchOf(b, op, images)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if alpha.Shape().Size() != 1 || sigma.Shape().Size() != 1 {
		return failf(b, op, images.Shape(), "alpha %v and sigma %v must be scalars", alpha.Shape(), sigma.Shape())
	}
	if kernelSize < 1 || kernelSize%2 == 0 {
		return failf(b, op, images.Shape(), "kernel size %d must be a positive odd number", kernelSize)
	}
	opts := o.affine()
	if err := CheckAffineTransformModes(opts.Interpolation, opts.FillMode); err != nil {
		return failf(b, op, images.Shape(), "%v", err)
	}
	s := x.Shape()
	n, h, w := s[0], s[1], s[2]
	// The Gaussian's taps for the computed sigma: exp(-d²/2σ²), normalised.
	d := make([]float64, kernelSize)
	for i := range d {
		d[i] = float64(i) - float64(kernelSize-1)/2
	}
	sig := b.Reshape(sigma, Shape{1, 1})
	taps := b.Exp(b.Mul(scalar(b, -0.5), b.Square(b.Div(b.Constant(d, Shape{1, kernelSize}), sig))))
	taps = b.Div(taps, b.Reshape(b.Sum(taps, 1), Shape{1, 1})) // (1, k)
	field := func() Value {                                    // (batch, h, w)
		noise := b.Mul(b.RandomNormal(Shape{n, h, w}), b.Reshape(sigma, Shape{1, 1, 1}))
		return b.Reshape(blurWith(b, b.Reshape(noise, Shape{n, h, w, 1}), taps, kernelSize), Shape{n, h, w})
	}
	dx, dy := field(), field()
	a := b.Reshape(alpha, Shape{1, 1, 1})
	rows, cols := make([]float64, h*w), make([]float64, h*w)
	for i := range rows {
		rows[i], cols[i] = float64(i/w), float64(i%w)
	}
	grid := Shape{1, h, w}
	yIn := b.Add(b.Constant(rows, grid), b.Mul(a, dy))
	xIn := b.Add(b.Constant(cols, grid), b.Mul(a, dx))
	return back(sampleImages(b, x, yIn, xIn, opts))
}

// blurWith convolves x (batch, h, w, 1) with outer(taps, taps), taps
// (1, k).
func blurWith(b Builder, x, taps Value, k int) Value {
	t := b.Reshape(taps, Shape{k})
	kernel := b.Mul(b.Reshape(t, Shape{k, 1}), b.Reshape(t, Shape{1, k}))
	return DepthwiseConv(b, x, b.Reshape(kernel, Shape{k, k, 1, 1}), ConvOptions{Padding: backend.Same})
}
