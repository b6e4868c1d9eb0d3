package ops

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Volumes are 3-D inputs (batch, depth, rows, cols, channels). Their
// convolutions and pools are written over the 2-D ones, since a window
// over a volume is a window along depth times a window over each depth
// slice's image: a 3-D convolution is the sum, over the kernel's depth
// taps, of the 2-D convolutions of the input's depth views with that
// tap's 2-D kernel; a 3-D pool pools along depth first, then each
// slice's image (maxima and padding-excluded means are separable over a
// box), the slices side by side as the channels of one image. So no engine needs a 3-D kernel, and the gradients are the 2-D
// ops'.

// axisWindow is a window along one axis: its size, stride, dilation and
// Keras's padding.
type axisWindow struct {
	size, stride, dilation int
	padding                backend.Padding
}

// span is how far the window reaches.
func (w axisWindow) span() int { return (w.size-1)*w.dilation + 1 }

// out is the number of windows along an axis of length n.
func (w axisWindow) out(n int) int {
	out, _, _ := backend.ConvOutputSize(n, w.span(), w.stride, w.padding)
	return max(out, 0)
}

// views returns, for each tap of the window, the strided view of x along
// axis at that tap of every window, x padded with fill for "same".
func (w axisWindow) views(b Builder, x Value, axis int, fill float64) []Value {
	n := x.Shape()[axis]
	outN := w.out(n)
	if w.padding == backend.Same {
		_, before, total := backend.ConvOutputSize(n, w.span(), w.stride, w.padding)
		if total > 0 {
			widths := make([][2]int, len(x.Shape()))
			widths[axis] = [2]int{before, total - before}
			x = Pad(b, x, widths, PadConstant, fill)
		}
	}
	out := make([]Value, w.size)
	for a := range out {
		out[a] = stridedAxis(b, x, axis, a*w.dilation, outN, w.stride)
	}
	return out
}

// counts is how many elements of an axis of length n each window covers
// (padding excluded), for average pooling.
func (w axisWindow) counts(n int) []float64 {
	_, before, _ := backend.ConvOutputSize(n, w.span(), w.stride, w.padding)
	out := make([]float64, w.out(n))
	for i := range out {
		for a := 0; a < w.size; a++ {
			if p := i*w.stride + a*w.dilation - before; p >= 0 && p < n {
				out[i]++
			}
		}
	}
	return out
}

// volumeWindow is a window over volumes: along depth, and over each
// depth slice's image.
type volumeWindow struct {
	depth axisWindow
	plane window
}

// volumeWindowOf reads the options of a window of the given size over
// volumes, checking them as convWindow does images.
func volumeWindowOf(b Builder, op string, size [3]int, o ConvOptions) (volumeWindow, bool) {
	st, ok1 := perAxis(b, op, "strides", o.Strides, 3, 1)
	di, ok2 := perAxis(b, op, "dilation_rate", o.DilationRate, 3, 1)
	if !ok1 || !ok2 {
		return volumeWindow{}, false
	}
	if di != [3]int{1, 1, 1} && st != [3]int{1, 1, 1} {
		failf(b, op, nil, "dilation_rate %v needs strides of 1, as in Keras; got %v", di, st)
		return volumeWindow{}, false
	}
	plane, ok := convWindow(b, op, [2]int{size[1], size[2]}, 2, ConvOptions{Strides: st[1:], Padding: o.Padding, DilationRate: di[1:]})
	if !ok {
		return volumeWindow{}, false
	}
	return volumeWindow{depth: axisWindow{size: size[0], stride: st[0], dilation: di[0], padding: plane.padding}, plane: plane}, true
}

// fits records an error unless every window fits in volumes of shape in.
func (w volumeWindow) fits(b Builder, op string, in Shape) bool {
	if w.depth.out(in[1]) == 0 {
		failf(b, op, in, "a window of depth %d is larger than the input's %d (input %v)", w.depth.span(), in[1], in)
		return false
	}
	if _, _, err := w.plane.outShape(Shape{in[0], in[2], in[3], in[4]}); err != nil {
		failf(b, op, in, "%v", err)
		return false
	}
	return true
}

// perAxis reads a per-axis list for three spatial axes: one value for
// all, or one each; nil gives def. Each must be positive.
func perAxis(b Builder, op, name string, v []int, n, def int) ([3]int, bool) {
	out := [3]int{def, def, def}
	switch len(v) {
	case 0:
	case 1:
		out = [3]int{v[0], v[0], v[0]}
	case n:
		copy(out[:], v)
	default:
		failf(b, op, nil, "%s %v: give one value, or one per spatial axis (%d)", name, v, n)
		return out, false
	}
	for _, e := range out {
		if e < 1 {
			failf(b, op, nil, "%s %v must be positive", name, v)
			return out, false
		}
	}
	return out, true
}

// depthSlices folds the depth axis of volumes (batch, depth, rows, cols,
// channels) into the batch, as images.
func depthSlices(b Builder, x Value) Value {
	s := x.Shape()
	return b.Reshape(x, Shape{s[0] * s[1], s[2], s[3], s[4]})
}

// unslice undoes depthSlices for a batch of batch volumes.
func unslice(b Builder, y Value, batch int) Value {
	s := y.Shape()
	return b.Reshape(y, Shape{batch, s[0] / batch, s[1], s[2], s[3]})
}

// volumeKernel reads a 3-D kernel (depth, rows, cols, in, out) for
// volumes of shape in, naming what op wants as the kernel's last two axes.
func volumeKernel(b Builder, op string, in Shape, kernel Value, want string) (Shape, bool) {
	ks := kernel.Shape()
	if len(ks) != 5 {
		failf(b, op, in, "a kernel of shape %v for an input %v: want (depth, rows, cols, %s)", ks, in, want)
		return nil, false
	}
	return ks, true
}

// convSlices convolves volumes x with kernel (depth, rows, cols, ...):
// the sum over the kernel's depth taps of conv2D of the input's depth
// views with that tap's image kernel.
func convSlices(b Builder, x, kernel Value, w volumeWindow, conv2D func(img, k Value) Value) Value {
	ks := kernel.Shape()
	var sum Value
	for a, v := range w.depth.views(b, x, 1, 0) {
		begin := make([]int, len(ks))
		begin[0] = a
		size := append(Shape{1}, ks[1:]...)
		tap := b.Reshape(b.Slice(kernel, begin, size), ks[1:].Clone())
		term := conv2D(depthSlices(b, v), tap)
		if sum == nil {
			sum = term
		} else {
			sum = b.Add(sum, term)
		}
	}
	return unslice(b, sum, x.Shape()[0])
}

// convVolumes is Conv for volumes, kernel (depth, rows, cols,
// channels/groups, filters).
func convVolumes(b Builder, inputs, kernel Value, o ConvOptions) Value {
	const op = "Conv"
	in := inputs.Shape()
	ks, ok := volumeKernel(b, op, in, kernel, "in_channels, filters")
	if !ok {
		return b.Fail(nil, b.Err())
	}
	c := in[4]
	if ks[3] <= 0 || c%ks[3] != 0 || ks[4]%(c/ks[3]) != 0 {
		return failf(b, op, in, "the kernel's %d input channels do not divide the input's %d channels into groups that also divide its %d filters", ks[3], c, ks[4])
	}
	w, ok := volumeWindowOf(b, op, [3]int{ks[0], ks[1], ks[2]}, o)
	if !ok || !w.fits(b, op, in) {
		return b.Fail(nil, b.Err())
	}
	groups := c / ks[3]
	return convSlices(b, inputs, kernel, w, func(img, k Value) Value { return grouped(b, img, k, w.plane, groups) })
}

// depthwiseVolumes is DepthwiseConv for volumes, kernel (depth, rows,
// cols, channels, multiplier).
func depthwiseVolumes(b Builder, inputs, kernel Value, o ConvOptions) Value {
	const op = "DepthwiseConv"
	in := inputs.Shape()
	ks, ok := volumeKernel(b, op, in, kernel, "channels, multiplier")
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if ks[3] != in[4] {
		return failf(b, op, in, "a kernel of shape %v for an input %v: want (depth, rows, cols, %d, multiplier)", ks, in, in[4])
	}
	w, ok := volumeWindowOf(b, op, [3]int{ks[0], ks[1], ks[2]}, o)
	if !ok || !w.fits(b, op, in) {
		return b.Fail(nil, b.Err())
	}
	return convSlices(b, inputs, kernel, w, func(img, k Value) Value { return depthwise(b, w.plane, img, k, ks[4]) })
}

// poolVolumes is MaxPool (max true) or AveragePool for volumes: pooled
// along depth, then each slice's image.
func poolVolumes(b Builder, op string, inputs Value, poolSize []int, o PoolOptions, max bool) Value {
	in := inputs.Shape()
	size, ok := perAxis(b, op, "pool_size", poolSize, 3, 1)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	strides := o.Strides
	if strides == nil {
		strides = poolSize
	}
	w, ok := volumeWindowOf(b, op, size, ConvOptions{Strides: strides, Padding: o.Padding})
	if !ok || !w.fits(b, op, in) {
		return b.Fail(nil, b.Err())
	}
	fill := 0.0
	if max {
		fill = -math.MaxFloat32 // never the largest: every window holds an element of the input
	}
	var depth Value
	for _, v := range w.depth.views(b, inputs, 1, fill) {
		switch {
		case depth == nil:
			depth = v
		case max:
			depth = b.Maximum(depth, v)
		default:
			depth = b.Add(depth, v)
		}
	}
	// The depth slices side by side as channels of one image each, so that
	// the batch stays the first axis (constants a 2-D pool makes, such as
	// its padding, then follow the batch as ONNX export needs).
	ds := depth.Shape()
	img := b.Reshape(b.Transpose(depth, 0, 2, 3, 1, 4), Shape{ds[0], ds[2], ds[3], ds[1] * ds[4]})
	var pooled Value
	if max {
		pooled = b.MaxPool2D(img, backend.PoolOptions{Size: w.plane.size, Strides: w.plane.strides, Padding: w.plane.padding})
	} else {
		counts := w.depth.counts(in[1])
		img = b.Div(img, b.Constant(repeatEach(counts, ds[4]), Shape{1, 1, 1, ds[1] * ds[4]}))
		pooled = averageWindows(b, img, w.plane)
	}
	ps := pooled.Shape()
	return b.Transpose(b.Reshape(pooled, Shape{ps[0], ps[1], ps[2], ds[1], ds[4]}), 0, 3, 1, 2, 4)
}

// repeatEach repeats each value of v n times.
func repeatEach(v []float64, n int) []float64 {
	out := make([]float64, 0, len(v)*n)
	for _, e := range v {
		for range n {
			out = append(out, e)
		}
	}
	return out
}
