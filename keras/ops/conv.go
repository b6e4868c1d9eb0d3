package ops

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// ConvOptions are Keras's convolution arguments beyond the inputs and the
// kernel. Each list has one value per spatial axis, or one for all; nil
// means 1. The layout is Keras's channels_last.
type ConvOptions struct {
	Strides      []int
	Padding      backend.Padding // backend.Valid (the default) or backend.Same
	DilationRate []int
}

// PoolOptions are Keras's pooling arguments beyond the inputs and the
// pool size: strides (nil: the pool size, as Keras) and padding.
type PoolOptions struct {
	Strides []int
	Padding backend.Padding
}

// window describes sliding windows over images (batch, rows, cols,
// channels): their size, strides, dilation and Keras's padding. What has
// no engine op (average pooling, depthwise and dilated convolutions) is
// written as a sum over the window's offsets of strided views of the
// input, each view (batch, outRows, outCols, channels) the input pixel at
// that offset of every window.
type window struct {
	size, strides, dilation [2]int
	padding                 backend.Padding
}

// span is how far a window reaches along axis i.
func (w window) span(i int) int { return (w.size[i]-1)*w.dilation[i] + 1 }

// outShape is the output's spatial size for images of shape in.
func (w window) outShape(in Shape) (rows, cols int, err error) {
	size := func(n, i int) int {
		out, _, _ := backend.ConvOutputSize(n, w.span(i), w.strides[i], w.padding)
		return max(out, 0)
	}
	rows, cols = size(in[1], 0), size(in[2], 1)
	if rows == 0 || cols == 0 {
		return 0, 0, fmt.Errorf("a window of %dx%d is larger than the input's %dx%d (input %v)", w.span(0), w.span(1), in[1], in[2], in)
	}
	return rows, cols, nil
}

// views returns, for each window offset in row-major order, the strided
// view of x (padded with zeros for "same") at that offset.
func (w window) views(b Builder, x Value) []Value {
	in := x.Shape()
	rows, cols, err := w.outShape(in)
	if err != nil {
		return []Value{b.Fail(nil, err)}
	}
	if w.padding == backend.Same {
		_, top, totalH := backend.ConvOutputSize(in[1], w.span(0), w.strides[0], w.padding)
		_, left, totalW := backend.ConvOutputSize(in[2], w.span(1), w.strides[1], w.padding)
		x = PadAxis(b, x, 1, top, totalH-top)
		x = PadAxis(b, x, 2, left, totalW-left)
	}
	var out []Value
	for a := 0; a < w.size[0]; a++ {
		rowsAt := stridedAxis(b, x, 1, a*w.dilation[0], rows, w.strides[0])
		for e := 0; e < w.size[1]; e++ {
			out = append(out, stridedAxis(b, rowsAt, 2, e*w.dilation[1], cols, w.strides[1]))
		}
	}
	return out
}

// counts is how many input pixels each output window covers (padding
// excluded), for average pooling.
func (w window) counts(h, wd, rows, cols int) []float64 {
	_, top, _ := backend.ConvOutputSize(h, w.span(0), w.strides[0], w.padding)
	_, left, _ := backend.ConvOutputSize(wd, w.span(1), w.strides[1], w.padding)
	out := make([]float64, rows*cols)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			n := 0
			for a := 0; a < w.size[0]; a++ {
				for e := 0; e < w.size[1]; e++ {
					r, c := i*w.strides[0]+a*w.dilation[0]-top, j*w.strides[1]+e*w.dilation[1]-left
					if r >= 0 && r < h && c >= 0 && c < wd {
						n++
					}
				}
			}
			out[i*cols+j] = float64(n)
		}
	}
	return out
}

// stridedAxis takes n elements along axis, from start, stride apart.
func stridedAxis(b Builder, x Value, axis, start, n, stride int) Value {
	s := x.Shape()
	have := s[axis] - start
	need := n * stride // take n*stride, then every stride-th
	if have < need {
		x = PadAxis(b, x, axis, 0, need-have)
		s = x.Shape()
	}
	x = sliceAxis(b, x, axis, start, need)
	if stride == 1 {
		return x
	}
	split := append(append(s[:axis].Clone(), n, stride), s[axis+1:]...)
	x = b.Reshape(x, split)
	x = sliceAxis(b, x, axis+1, 0, 1)
	out := s.Clone()
	out[axis] = n
	return b.Reshape(x, out)
}

// PadAxis adds before and after zeros along one axis: Pad of one axis.
func PadAxis(b Builder, x Value, axis, before, after int) Value {
	if missing(b, "PadAxis", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	a, ok := axisOf(b, "PadAxis", x, axis)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	widths := make([][2]int, len(x.Shape()))
	widths[a] = [2]int{before, after}
	return Pad(b, x, widths, PadConstant, 0)
}

// pair reads a per-axis list for n spatial axes (one value for all, or
// one each; nil gives def).
func pair(b Builder, op, name string, v []int, n, def int) ([2]int, bool) {
	out := [2]int{def, def}
	switch len(v) {
	case 0:
	case 1:
		out = [2]int{v[0], v[0]}
	case n:
		copy(out[2-n:], v)
	default:
		failf(b, op, nil, "%s %v: give one value, or one per spatial axis (%d)", name, v, n)
		return out, false
	}
	if n == 1 {
		out[0] = 1
	}
	if out[0] < 1 || out[1] < 1 {
		failf(b, op, nil, "%s %v must be positive", name, v)
		return out, false
	}
	return out, true
}

// images lifts a 1-D input (batch, steps, channels) to a one-row image
// and checks a 2-D one; back undoes the lift.
func images(b Builder, op string, x Value) (img Value, spatial int, back func(Value) Value, ok bool) {
	s := x.Shape()
	switch len(s) {
	case 3:
		img = b.Reshape(x, Shape{s[0], 1, s[1], s[2]})
		return img, 1, func(y Value) Value {
			ys := y.Shape()
			return b.Reshape(y, Shape{ys[0], ys[2], ys[3]})
		}, true
	case 4:
		return x, 2, func(y Value) Value { return y }, true
	}
	failf(b, op, s, "the input %v must be (batch, steps, channels), (batch, rows, cols, channels) or (batch, depth, rows, cols, channels)", s)
	return nil, 0, nil, false
}

// convWindow reads the options for spatial axes of kernel size k.
func convWindow(b Builder, op string, k [2]int, spatial int, o ConvOptions) (window, bool) {
	st, ok1 := pair(b, op, "strides", o.Strides, spatial, 1)
	di, ok2 := pair(b, op, "dilation_rate", o.DilationRate, spatial, 1)
	if !ok1 || !ok2 {
		return window{}, false
	}
	p := o.Padding
	if p == "" {
		p = backend.Valid
	}
	if p != backend.Valid && p != backend.Same {
		failf(b, op, nil, "padding %q: use \"valid\" or \"same\"", p)
		return window{}, false
	}
	if di != [2]int{1, 1} && st != [2]int{1, 1} {
		failf(b, op, nil, "dilation_rate %v needs strides of 1, as in Keras; got %v", di, st)
		return window{}, false
	}
	return window{size: k, strides: st, dilation: di, padding: p}, true
}

// Conv convolves inputs (batch, steps, channels), (batch, rows, cols,
// channels) or (batch, depth, rows, cols, channels) with kernel
// (spatial..., channels/groups, filters), Keras's ops.conv: the groups
// are channels / the kernel's input channels. No bias.
func Conv(b Builder, inputs, kernel Value, o ConvOptions) Value {
	if missing(b, "Conv", []string{"inputs", "kernel"}, inputs, kernel) {
		return b.Fail(nil, b.Err())
	}
	if len(inputs.Shape()) == 5 {
		return convVolumes(b, inputs, kernel, o)
	}
	img, spatial, back, ok := images(b, "Conv", inputs)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	ks := kernel.Shape()
	if len(ks) != spatial+2 {
		return failf(b, "Conv", inputs.Shape(), "a kernel of shape %v for an input %v: want (%s, in_channels, filters)", ks, inputs.Shape(), map[int]string{1: "width", 2: "rows, cols"}[spatial])
	}
	k := kernel
	if spatial == 1 {
		k = b.Reshape(kernel, Shape{1, ks[0], ks[1], ks[2]})
	}
	kk := k.Shape()
	c := img.Shape()[3]
	if kk[2] <= 0 || c%kk[2] != 0 || kk[3]%(c/kk[2]) != 0 {
		return failf(b, "Conv", inputs.Shape(), "the kernel's %d input channels do not divide the input's %d channels into groups that also divide its %d filters", kk[2], c, kk[3])
	}
	w, ok := convWindow(b, "Conv", [2]int{kk[0], kk[1]}, spatial, o)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if _, _, err := w.outShape(img.Shape()); err != nil {
		return failf(b, "Conv", inputs.Shape(), "%v", err)
	}
	return back(grouped(b, img, k, w, c/kk[2]))
}

// grouped convolves x with kernel (rows, cols, channels/groups, filters):
// the engine's Conv2D, or, dilated, the sum of each kernel tap's product
// with its strided view of the input; grouped convolutions convolve each
// group's channels with its filters and join the results.
func grouped(b Builder, x, kernel Value, w window, groups int) Value {
	conv := func(x, k Value) Value {
		if w.dilation == [2]int{1, 1} {
			return b.Conv2D(x, k, backend.ConvOptions{Strides: w.strides, Padding: w.padding})
		}
		ks := k.Shape()
		var sum Value
		for i, v := range w.views(b, x) {
			a, e := i/ks[1], i%ks[1]
			tap := b.Reshape(b.Slice(k, []int{a, e, 0, 0}, []int{1, 1, ks[2], ks[3]}), Shape{ks[2], ks[3]})
			s := v.Shape()
			term := b.Reshape(b.MatMul(b.Reshape(v, Shape{s[0] * s[1] * s[2], s[3]}), tap), Shape{s[0], s[1], s[2], ks[3]})
			if sum == nil {
				sum = term
			} else {
				sum = b.Add(sum, term)
			}
		}
		return sum
	}
	if groups == 1 {
		return conv(x, kernel)
	}
	xs, ks := x.Shape(), kernel.Shape()
	perIn, perOut := xs[3]/groups, ks[3]/groups
	parts := make([]Value, groups)
	for g := range parts {
		xg := b.Slice(x, []int{0, 0, 0, g * perIn}, []int{xs[0], xs[1], xs[2], perIn})
		kg := b.Slice(kernel, []int{0, 0, 0, g * perOut}, []int{ks[0], ks[1], ks[2], perOut})
		parts[g] = conv(xg, kg)
	}
	return b.Concat(3, parts...)
}

// DepthwiseConv convolves each input channel with its own kernel
// (spatial..., channels, multiplier), giving channels·multiplier outputs
// (channel c's m-th at c·multiplier+m), Keras's ops.depthwise_conv.
func DepthwiseConv(b Builder, inputs, kernel Value, o ConvOptions) Value {
	if missing(b, "DepthwiseConv", []string{"inputs", "kernel"}, inputs, kernel) {
		return b.Fail(nil, b.Err())
	}
	if len(inputs.Shape()) == 5 {
		return depthwiseVolumes(b, inputs, kernel, o)
	}
	img, spatial, back, ok := images(b, "DepthwiseConv", inputs)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	ks := kernel.Shape()
	c := img.Shape()[3]
	if len(ks) != spatial+2 || ks[len(ks)-2] != c {
		return failf(b, "DepthwiseConv", inputs.Shape(), "a kernel of shape %v for an input %v: want (spatial..., %d, multiplier)", ks, inputs.Shape(), c)
	}
	k := kernel
	if spatial == 1 {
		k = b.Reshape(kernel, Shape{1, ks[0], ks[1], ks[2]})
	}
	kk := k.Shape()
	w, ok := convWindow(b, "DepthwiseConv", [2]int{kk[0], kk[1]}, spatial, o)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if _, _, err := w.outShape(img.Shape()); err != nil {
		return failf(b, "DepthwiseConv", inputs.Shape(), "%v", err)
	}
	return back(depthwise(b, w, img, k, kk[3]))
}

// depthwise sums each window offset's view times that offset's kernel,
// channel by channel.
func depthwise(b Builder, w window, x, kernel Value, mult int) Value {
	c := x.Shape()[3]
	var sum Value
	for i, v := range w.views(b, x) {
		a, e := i/w.size[1], i%w.size[1]
		k := b.Slice(kernel, []int{a, e, 0, 0}, []int{1, 1, c, mult})
		s := v.Shape()
		var term Value
		if mult == 1 {
			term = b.Mul(v, b.Reshape(k, Shape{c}))
		} else {
			term = b.Mul(b.Reshape(v, Shape{s[0], s[1], s[2], c, 1}), b.Reshape(k, Shape{c, mult}))
			term = b.Reshape(term, Shape{s[0], s[1], s[2], c * mult})
		}
		if sum == nil {
			sum = term
		} else {
			sum = b.Add(sum, term)
		}
	}
	return sum
}

// SeparableConv is DepthwiseConv with depthwiseKernel, then a 1×1
// convolution with pointwiseKernel (1..., channels·multiplier, filters).
func SeparableConv(b Builder, inputs, depthwiseKernel, pointwiseKernel Value, o ConvOptions) Value {
	if missing(b, "SeparableConv", []string{"inputs", "depthwise_kernel", "pointwise_kernel"}, inputs, depthwiseKernel, pointwiseKernel) {
		return b.Fail(nil, b.Err())
	}
	y := DepthwiseConv(b, inputs, depthwiseKernel, o)
	ps := pointwiseKernel.Shape()
	ys := y.Shape()
	if len(ps) < 2 || ps[len(ps)-2] != ys[len(ys)-1] || Shape(ps[:len(ps)-2]).Size() != 1 {
		return failf(b, "SeparableConv", inputs.Shape(), "a pointwise kernel of shape %v: want (1..., %d, filters)", ps, ys[len(ys)-1])
	}
	filters := ps[len(ps)-1]
	rows := ys[:len(ys)-1].Size()
	mixed := b.MatMul(b.Reshape(y, Shape{rows, ys[len(ys)-1]}), b.Reshape(pointwiseKernel, Shape{ps[len(ps)-2], filters}))
	return b.Reshape(mixed, append(ys[:len(ys)-1].Clone(), filters))
}

// poolWindow reads pooling options for spatial axes.
func poolWindow(b Builder, op string, x Value, poolSize []int, o PoolOptions) (img Value, w window, back func(Value) Value, ok bool) {
	img, spatial, back, ok := images(b, op, x)
	if !ok {
		return nil, window{}, nil, false
	}
	size, ok := pair(b, op, "pool_size", poolSize, spatial, 1)
	if !ok {
		return nil, window{}, nil, false
	}
	strides := o.Strides
	if strides == nil {
		strides = poolSize
	}
	w, ok = convWindow(b, op, size, spatial, ConvOptions{Strides: strides, Padding: o.Padding})
	if !ok {
		return nil, window{}, nil, false
	}
	if _, _, err := w.outShape(img.Shape()); err != nil {
		failf(b, op, x.Shape(), "%v", err)
		return nil, window{}, nil, false
	}
	return img, w, back, true
}

// MaxPool is the largest value of each window, Keras's ops.max_pool on
// (batch, steps, channels), (batch, rows, cols, channels) or (batch,
// depth, rows, cols, channels).
func MaxPool(b Builder, inputs Value, poolSize []int, o PoolOptions) Value {
	if missing(b, "MaxPool", []string{"inputs"}, inputs) {
		return b.Fail(nil, b.Err())
	}
	if len(inputs.Shape()) == 5 {
		return poolVolumes(b, "MaxPool", inputs, poolSize, o, true)
	}
	img, w, back, ok := poolWindow(b, "MaxPool", inputs, poolSize, o)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	return back(b.MaxPool2D(img, backend.PoolOptions{Size: w.size, Strides: w.strides, Padding: w.padding}))
}

// AveragePool is the mean of each window, padding excluded (Keras's
// ops.average_pool).
func AveragePool(b Builder, inputs Value, poolSize []int, o PoolOptions) Value {
	if missing(b, "AveragePool", []string{"inputs"}, inputs) {
		return b.Fail(nil, b.Err())
	}
	if len(inputs.Shape()) == 5 {
		return poolVolumes(b, "AveragePool", inputs, poolSize, o, false)
	}
	img, w, back, ok := poolWindow(b, "AveragePool", inputs, poolSize, o)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	return back(averageWindows(b, img, w))
}

// averageWindows sums the window's views and divides by the pixels each
// window covers.
func averageWindows(b Builder, x Value, w window) Value {
	var sum Value
	for _, v := range w.views(b, x) {
		if sum == nil {
			sum = v
		} else {
			sum = b.Add(sum, v)
		}
	}
	d := x.Shape()
	rows, cols, _ := w.outShape(d)
	return b.Div(sum, b.Constant(w.counts(d[1], d[2], rows, cols), Shape{1, rows, cols, 1}))
}
