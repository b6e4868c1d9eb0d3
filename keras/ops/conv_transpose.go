package ops

import (
	"github.com/kerasgo/kerasgo/keras/backend"
)

// ConvTransposeOptions are Keras's conv_transpose arguments beyond the
// inputs and the kernel. Each list has one value per spatial axis, or one
// for all. OutputPadding nil is Keras's None (the output length follows
// from the padding alone); DilationRate nil means 1.
type ConvTransposeOptions struct {
	Strides       []int // nil: 1
	Padding       backend.Padding
	OutputPadding []int
	DilationRate  []int
}

// ConvTranspose is the transpose (gradient) of a convolution, Keras's
// ops.conv_transpose: inputs (batch, steps, channels), (batch, rows,
// cols, channels) or (batch, depth, rows, cols, channels) and kernel
// (spatial..., filters, channels), no bias.
// Each output length is Keras's deconv_output_length: (n-1)·stride +
// span - 2·pad + output_padding, where "valid" and "same" without output
// padding give n·stride + max(span - stride, 0) and n·stride.
//
// It is written as Keras's JAX backend computes it: the input spread out
// by the strides (stride-1 zeros between its elements), padded as
// Keras's conv-transpose padding rule says, and convolved with the
// kernel reversed along its spatial axes.
func ConvTranspose(b Builder, inputs, kernel Value, o ConvTransposeOptions) Value {
	const op = "ConvTranspose"
	if missing(b, op, []string{"inputs", "kernel"}, inputs, kernel) {
		return b.Fail(nil, b.Err())
	}
	spatial := len(inputs.Shape()) - 2
	x, lifted, back, ok := inputs, kernel, func(y Value) Value { return y }, true
	if spatial != 3 {
		if x, spatial, back, ok = images(b, op, inputs); !ok {
			return b.Fail(nil, b.Err())
		}
	}
	ks := kernel.Shape()
	if len(ks) != spatial+2 {
		return failf(b, op, inputs.Shape(), "a kernel of shape %v for an input %v: want (%s, filters, in_channels)", ks, inputs.Shape(), map[int]string{1: "width", 2: "rows, cols", 3: "depth, rows, cols"}[spatial])
	}
	if c := inputs.Shape()[len(inputs.Shape())-1]; ks[len(ks)-1] != c {
		return failf(b, op, inputs.Shape(), "the kernel %v takes %d input channels, the input %v has %d", ks, ks[len(ks)-1], inputs.Shape(), c)
	}
	st, ok1 := perAxis(b, op, "strides", o.Strides, spatial, 1)
	di, ok2 := perAxis(b, op, "dilation_rate", o.DilationRate, spatial, 1)
	if !ok1 || !ok2 {
		return b.Fail(nil, b.Err())
	}
	p := o.Padding
	if p == "" {
		p = backend.Valid
	}
	if p != backend.Valid && p != backend.Same {
		return failf(b, op, nil, "padding %q: use \"valid\" or \"same\"", p)
	}
	var outPad [3]int
	if o.OutputPadding != nil {
		var ok bool
		if outPad, ok = outputPadding(b, op, o.OutputPadding, spatial); !ok {
			return b.Fail(nil, b.Err())
		}
	}
	// The lists per axis of x: a sequence is a one-row image, whose row
	// axis has a kernel, stride and dilation of 1.
	size, strides, dilation, extra := ks[:spatial].Clone(), st[:spatial], di[:spatial], outPad[:spatial]
	if spatial == 1 {
		size, strides, dilation, extra = Shape{1, ks[0]}, []int{1, st[0]}, []int{1, di[0]}, []int{0, outPad[0]}
		lifted = b.Reshape(kernel, Shape{1, ks[0], ks[1], ks[2]})
	}
	for i := range size {
		axis := 1 + i
		span := (size[i]-1)*dilation[i] + 1
		before, after := transposePadding(span, strides[i], p, o.OutputPadding != nil, extra[i])
		x = spreadAxis(b, x, axis, strides[i])
		x = padOrCrop(b, x, axis, before, after)
		if n := x.Shape()[axis]; n < span {
			return failf(b, op, inputs.Shape(), "the output would have no elements along spatial axis %d (the kernel spans %d, the padded input %d)", i, span, n)
		}
	}
	// The kernel reversed along its spatial axes, as (spatial...,
	// in_channels, filters) for a convolution.
	n := len(size)
	axes, perm := make([]int, n), make([]int, n+2)
	for i := range perm {
		perm[i] = i
	}
	for i := range axes {
		axes[i] = i
	}
	perm[n], perm[n+1] = n+1, n
	flipped := b.Transpose(Flip(b, lifted, axes...), perm...)
	plane := window{size: [2]int{size[n-2], size[n-1]}, strides: [2]int{1, 1}, dilation: [2]int{dilation[n-2], dilation[n-1]}, padding: backend.Valid}
	if n == 2 {
		return back(grouped(b, x, flipped, plane, 1))
	}
	w := volumeWindow{depth: axisWindow{size: size[0], stride: 1, dilation: dilation[0], padding: backend.Valid}, plane: plane}
	return convSlices(b, x, flipped, w, func(img, k Value) Value { return grouped(b, img, k, plane, 1) })
}

// outputPadding reads Keras's output_padding: one value for all spatial
// axes or one each, none negative.
func outputPadding(b Builder, op string, v []int, spatial int) ([3]int, bool) {
	var out [3]int
	switch len(v) {
	case 1:
		out = [3]int{v[0], v[0], v[0]}
	case spatial:
		copy(out[:], v)
	default:
		failf(b, op, nil, "output_padding %v: give one value, or one per spatial axis (%d)", v, spatial)
		return out, false
	}
	for _, e := range out {
		if e < 0 {
			failf(b, op, nil, "output_padding %v must not be negative", v)
			return out, false
		}
	}
	return out, true
}

// transposePadding is Keras's padding of the spread-out input for a
// transposed convolution of a kernel spanning span
// (_convert_conv_transpose_padding_args_from_keras_to_jax): the zeros
// before and after it.
func transposePadding(span, stride int, p backend.Padding, hasOutPad bool, outPad int) (before, after int) {
	if p == backend.Valid {
		if !hasOutPad {
			outPad = max(span, stride) - span
		}
		return span - 1, span - 1 + outPad
	}
	padLen := stride + span - 2
	if hasOutPad {
		padLen = span + span%2 - 2 + outPad
	}
	before = min(padLen/2+padLen%2, span-1)
	return before, padLen - before
}

// spreadAxis puts stride-1 zeros between the elements of x along axis:
// n elements become (n-1)·stride + 1.
func spreadAxis(b Builder, x Value, axis, stride int) Value {
	if stride == 1 {
		return x
	}
	s := x.Shape()
	n := s[axis]
	wide := append(append(s[:axis+1].Clone(), 1), s[axis+1:]...)
	maskShape := make(Shape, len(wide))
	for i := range maskShape {
		maskShape[i] = 1
	}
	maskShape[axis+1] = stride
	mask := make([]float64, stride)
	mask[0] = 1
	y := b.Mul(b.Reshape(x, wide), b.Constant(mask, maskShape))
	spread := s.Clone()
	spread[axis] = n * stride
	return sliceAxis(b, b.Reshape(y, spread), axis, 0, (n-1)*stride+1)
}

// padOrCrop adds before and after zeros along axis, or, where a count is
// negative, removes that many elements from that end.
func padOrCrop(b Builder, x Value, axis, before, after int) Value {
	if before < 0 {
		x = sliceAxis(b, x, axis, -before, x.Shape()[axis]+before)
		before = 0
	}
	if after < 0 {
		x = sliceAxis(b, x, axis, 0, x.Shape()[axis]+after)
		after = 0
	}
	if before == 0 && after == 0 {
		return x
	}
	return PadAxis(b, x, axis, before, after)
}
