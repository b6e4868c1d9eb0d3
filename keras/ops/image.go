package ops

import (
	"math"

	"github.com/kerasgo/kerasgo/internal/resample"
	"github.com/kerasgo/kerasgo/keras/backend"
)

// The keras.ops.image functions take images in Keras's channels_last
// layout: a batch (batch, height, width, channels) or one image (height,
// width, channels).

// batchOf lifts one image to a batch of one; back undoes it.
func batchOf(b Builder, op string, images Value) (Value, func(Value) Value, bool) {
	if missing(b, op, []string{"images"}, images) {
		return nil, nil, false
	}
	s := images.Shape()
	switch len(s) {
	case 4:
		return images, func(v Value) Value { return v }, true
	case 3:
		return b.Reshape(images, append(Shape{1}, s...)), func(v Value) Value {
			return b.Reshape(v, v.Shape()[1:].Clone())
		}, true
	}
	failf(b, op, s, "images of shape %v: want (batch, height, width, channels) or (height, width, channels)", s)
	return nil, nil, false
}

// ResizeOptions are image.resize's options: Interpolation ("bilinear",
// Keras's default, when empty; "nearest", "bicubic", "lanczos3",
// "lanczos5", "area") and Antialias.
type ResizeOptions struct {
	Interpolation string
	Antialias     bool
}

// Resize resizes images to height×width as Keras's JAX backend does
// (jax.image.resize's half-pixel centres): each spatial axis is
// resampled on its own by a fixed matrix of weights, so a resize is two
// matrix products, differentiable in the images; nearest-neighbour
// resizing gathers rows instead.
func Resize(b Builder, images Value, height, width int, o ResizeOptions) Value {
	x, back, ok := batchOf(b, "Resize", images)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	interp := o.Interpolation
	if interp == "" {
		interp = "bilinear"
	}
	if err := resample.Check(resample.JAX, interp); err != nil {
		return failf(b, "Resize", images.Shape(), "%v", err)
	}
	if height <= 0 || width <= 0 {
		return failf(b, "Resize", images.Shape(), "the size %dx%d must be positive", height, width)
	}
	return back(resizeAxis(b, resizeAxis(b, x, 1, height, interp, o.Antialias), 2, width, interp, o.Antialias))
}

// resizeAxis resamples one axis of x to length out.
func resizeAxis(b Builder, x Value, axis, out int, interpolation string, antialias bool) Value {
	in := x.Shape()[axis]
	if in == out {
		return x
	}
	kernel := resample.JAX[interpolation]
	return onAxis(b, x, axis, func(v Value) Value {
		if kernel == nil {
			idx := resample.NearestIndices(in, out)
			rows := make([]float64, out)
			for i, j := range idx {
				rows[i] = float64(j)
			}
			return b.Gather(v, b.Constant(rows, Shape{out}))
		}
		return b.MatMul(b.Constant(resample.Weights(in, out, *kernel, antialias), Shape{out, in}), v)
	})
}

// onAxis applies f to x with axis moved first (f sees (len, rest...)
// flattened to (len, rest)) and moves it back.
func onAxis(b Builder, x Value, axis int, f func(v Value) Value) Value {
	moved := moveAxis(b, x, axis, 0)
	ms := moved.Shape()
	y := f(b.Reshape(moved, Shape{ms[0], ms[1:].Size()}))
	out := append(Shape{y.Shape()[0]}, ms[1:]...)
	return moveAxis(b, b.Reshape(y, out), 0, axis)
}

// ExtractPatches cuts each image into size[0]×size[1] patches (strides
// default to the size), flattened with their channels: (batch, rows,
// cols, size[0]·size[1]·channels), a patch's values in (row, col,
// channel) order, as Keras's image.extract_patches.
func ExtractPatches(b Builder, images Value, size []int, o ConvOptions) Value {
	x, back, ok := batchOf(b, "ExtractPatches", images)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	k, ok := pair(b, "ExtractPatches", "size", size, 2, 1)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if o.Strides == nil {
		o.Strides = k[:]
	}
	w, ok := convWindow(b, "ExtractPatches", k, 2, o)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if _, _, err := w.outShape(x.Shape()); err != nil {
		return failf(b, "ExtractPatches", images.Shape(), "%v", err)
	}
	return back(b.Concat(3, w.views(b, x)...))
}

// ExtractPatches3D cuts each volume (batch, depth, rows, cols, channels),
// or one volume without the batch, into size[0]×size[1]×size[2] patches
// (one value for all, or one each; strides default to the size),
// flattened with their channels: (batch, depth', rows', cols',
// size[0]·size[1]·size[2]·channels), a patch's values in (depth, row,
// col, channel) order, as Keras's image.extract_patches_3d.
func ExtractPatches3D(b Builder, volumes Value, size []int, o ConvOptions) Value {
	const op = "ExtractPatches3D"
	if missing(b, op, []string{"volumes"}, volumes) {
		return b.Fail(nil, b.Err())
	}
	x, s := volumes, volumes.Shape()
	switch len(s) {
	case 4:
		x = b.Reshape(volumes, append(Shape{1}, s...))
	case 5:
	default:
		return failf(b, op, s, "volumes of shape %v: want (batch, depth, height, width, channels) or (depth, height, width, channels)", s)
	}
	k, ok := perAxis(b, op, "size", size, 3, 1)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if o.Strides == nil {
		o.Strides = k[:]
	}
	w, ok := volumeWindowOf(b, op, k, o)
	if !ok || !w.fits(b, op, x.Shape()) {
		return b.Fail(nil, b.Err())
	}
	// Each depth tap's view, its slices side by side as channels, cut by
	// the image windows; the pieces joined in (depth, row, col) order.
	xs := x.Shape()
	var pieces []Value
	for _, v := range w.depth.views(b, x, 1, 0) {
		vs := v.Shape()
		img := b.Reshape(b.Transpose(v, 0, 2, 3, 1, 4), Shape{vs[0], vs[2], vs[3], vs[1] * vs[4]})
		for _, p := range w.plane.views(b, img) {
			ps := p.Shape()
			pieces = append(pieces, b.Reshape(p, Shape{ps[0], ps[1], ps[2], vs[1], xs[4]}))
		}
	}
	y := b.Transpose(b.Concat(4, pieces...), 0, 3, 1, 2, 4)
	if len(s) == 4 {
		return b.Reshape(y, y.Shape()[1:].Clone())
	}
	return y
}

// CropImages removes top rows, left columns and the rows and columns
// past height×width (the size to keep).
func CropImages(b Builder, images Value, top, left, height, width int) Value {
	x, back, ok := batchOf(b, "CropImages", images)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	if top < 0 || left < 0 || height <= 0 || width <= 0 || top+height > s[1] || left+width > s[2] {
		return failf(b, "CropImages", images.Shape(), "a %dx%d crop at (%d, %d) does not fit images of %dx%d", height, width, top, left, s[1], s[2])
	}
	return back(Slice(b, x, []int{0, top, left, 0}, []int{s[0], height, width, s[3]}))
}

// PadImages adds top rows and left columns of zeros, and more at the
// bottom and right up to height×width.
func PadImages(b Builder, images Value, top, left, height, width int) Value {
	x, back, ok := batchOf(b, "PadImages", images)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	bottom, right := height-top-s[1], width-left-s[2]
	if top < 0 || left < 0 || bottom < 0 || right < 0 {
		return failf(b, "PadImages", images.Shape(), "padding images of %dx%d at (%d, %d) to %dx%d: the target must hold them", s[1], s[2], top, left, height, width)
	}
	return back(Pad(b, x, [][2]int{{0, 0}, {top, bottom}, {left, right}, {0, 0}}, PadConstant, 0))
}

// RgbToGrayscale is 0.2989·R + 0.587·G + 0.114·B, one channel.
func RgbToGrayscale(b Builder, images Value) Value {
	x, back, ok := rgbImages(b, "RgbToGrayscale", images)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	w := b.Constant([]float64{0.2989, 0.5870, 0.1140}, Shape{3})
	return back(Sum(b, b.Mul(x, w), Axis(-1), KeepDims()))
}

func rgbImages(b Builder, op string, images Value) (Value, func(Value) Value, bool) {
	x, back, ok := batchOf(b, op, images)
	if !ok {
		return nil, nil, false
	}
	if x.Shape()[3] != 3 {
		failf(b, op, images.Shape(), "images of shape %v: want 3 channels", images.Shape())
		return nil, nil, false
	}
	return x, back, true
}

// channels splits images (..., 3) into three planes (..., 1).
func channels(b Builder, x Value) (Value, Value, Value) {
	return sliceAxis(b, x, 3, 0, 1), sliceAxis(b, x, 3, 1, 1), sliceAxis(b, x, 3, 2, 1)
}

// RgbToHsv converts RGB values in [0, 1] to hue, saturation and value in
// [0, 1], as Keras's image.rgb_to_hsv.
func RgbToHsv(b Builder, images Value) Value {
	x, back, ok := rgbImages(b, "RgbToHsv", images)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	eps := 1.1920929e-07 // float32's epsilon
	if b.DType() == backend.Float64 {
		eps = 2.220446049250313e-16
	}
	x = b.Where(b.Greater(scalar(b, eps), b.Abs(x)), scalar(b, 0), x)
	r, g, bl := channels(b, x)
	value := b.Maximum(b.Maximum(r, g), bl)
	minimum := b.Minimum(b.Minimum(r, g), bl)
	rng := b.Sub(value, minimum)
	zero, one := scalar(b, 0), scalar(b, 1)
	positive := b.Greater(value, zero)
	safeValue := b.Where(positive, value, one)
	hasRange := b.Greater(rng, zero)
	safeRange := b.Where(hasRange, rng, one)
	saturation := b.Where(positive, b.Div(rng, safeValue), zero)
	norm := b.Div(one, b.Mul(safeRange, scalar(b, 6)))
	hue := b.Where(b.Equal(value, g), b.Add(b.Mul(norm, b.Sub(bl, r)), scalar(b, 2.0/6)), b.Add(b.Mul(norm, b.Sub(r, g)), scalar(b, 4.0/6)))
	hue = b.Where(b.Equal(value, r), b.Mul(norm, b.Sub(g, bl)), hue)
	hue = b.Add(b.Where(hasRange, hue, zero), b.Greater(zero, hue))
	return back(b.Concat(3, hue, saturation, value))
}

// HsvToRgb converts hue, saturation and value in [0, 1] to RGB, as
// Keras's image.hsv_to_rgb.
func HsvToRgb(b Builder, images Value) Value {
	x, back, ok := rgbImages(b, "HsvToRgb", images)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	h, s, v := channels(b, x)
	dh := b.Mul(Mod(b, h, scalar(b, 1)), scalar(b, 6))
	dr := Clip(b, b.Sub(b.Abs(b.Sub(dh, scalar(b, 3))), scalar(b, 1)), 0, 1)
	dg := Clip(b, b.Sub(scalar(b, 2), b.Abs(b.Sub(dh, scalar(b, 2)))), 0, 1)
	db := Clip(b, b.Sub(scalar(b, 2), b.Abs(b.Sub(dh, scalar(b, 4)))), 0, 1)
	oneMinusS := b.Sub(scalar(b, 1), s)
	plane := func(d Value) Value { return b.Mul(v, b.Add(oneMinusS, b.Mul(s, d))) }
	return back(b.Concat(3, plane(dr), plane(dg), plane(db)))
}

// channelwise convolves each channel of x (batch, h, w, c) with the same
// 2-D kernel (kh, kw), "same" padding.
func channelwise(b Builder, x Value, kernel []float64, kh, kw int) Value {
	c := x.Shape()[3]
	k := make([]float64, 0, kh*kw*c)
	for _, v := range kernel {
		for i := 0; i < c; i++ {
			k = append(k, v)
		}
	}
	return DepthwiseConv(b, x, b.Constant(k, Shape{kh, kw, c, 1}), ConvOptions{Padding: backend.Same})
}

// GaussianBlur blurs each channel with a Gaussian kernel of the given
// size and sigma (Keras's defaults are 3×3 and 1.0), as Keras's
// image.gaussian_blur: the kernel is outer(k(size[1], sigma[1]),
// k(size[0], sigma[0])), "same" padding with zeros.
func GaussianBlur(b Builder, images Value, size [2]int, sigma [2]float64) Value {
	x, back, ok := batchOf(b, "GaussianBlur", images)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if size[0] <= 0 || size[1] <= 0 || sigma[0] <= 0 || sigma[1] <= 0 {
		return failf(b, "GaussianBlur", images.Shape(), "kernel size %v and sigma %v must be positive", size, sigma)
	}
	gauss := func(n int, s float64) []float64 {
		k := make([]float64, n)
		sum := 0.0
		for i := range k {
			d := (float64(i) - float64(n-1)/2) / s
			k[i] = math.Exp(-0.5 * d * d)
			sum += k[i]
		}
		for i := range k {
			k[i] /= sum
		}
		return k
	}
	ky, kx := gauss(size[1], sigma[1]), gauss(size[0], sigma[0])
	kernel := make([]float64, 0, len(ky)*len(kx))
	for _, a := range ky {
		for _, e := range kx {
			kernel = append(kernel, a*e)
		}
	}
	return back(channelwise(b, x, kernel, len(ky), len(kx)))
}

// SobelEdges is each channel's Sobel gradients, (..., channels, 2) with
// [dy, dx] last, as Keras's image.sobel_edges.
func SobelEdges(b Builder, images Value) Value {
	x, back, ok := batchOf(b, "SobelEdges", images)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	dx := channelwise(b, x, []float64{-1, 0, 1, -2, 0, 2, -1, 0, 1}, 3, 3)
	dy := channelwise(b, x, []float64{-1, -2, -1, 0, 0, 0, 1, 2, 1}, 3, 3)
	return back(Stack(b, []Value{dy, dx}, -1))
}
