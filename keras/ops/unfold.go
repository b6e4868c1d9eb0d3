package ops

import "github.com/kerasgo/kerasgo/keras/backend"

// UnfoldOptions are Keras's unfold and fold arguments beyond the kernel
// size, each one value for both spatial axes or one per axis: Dilation
// and Stride (nil: 1) and Padding, the zeros added on both sides of each
// axis (nil: 0).
type UnfoldOptions struct {
	Dilation, Padding, Stride []int
}

// unfoldWindow reads the kernel size and options of Unfold or Fold.
func unfoldWindow(b Builder, op string, kernelSize []int, o UnfoldOptions) (w window, pad [2]int, ok bool) {
	if w.size, ok = pair(b, op, "kernel_size", kernelSize, 2, 0); !ok {
		return w, pad, false
	}
	if w.dilation, ok = pair(b, op, "dilation", o.Dilation, 2, 1); !ok {
		return w, pad, false
	}
	if w.strides, ok = pair(b, op, "stride", o.Stride, 2, 1); !ok {
		return w, pad, false
	}
	switch len(o.Padding) {
	case 0:
	case 1:
		pad = [2]int{o.Padding[0], o.Padding[0]}
	case 2:
		pad = [2]int{o.Padding[0], o.Padding[1]}
	default:
		failf(b, op, nil, "padding %v: give one value, or one per spatial axis (2)", o.Padding)
		return w, pad, false
	}
	if pad[0] < 0 || pad[1] < 0 {
		failf(b, op, nil, "padding %v must not be negative", o.Padding)
		return w, pad, false
	}
	w.padding = backend.Valid
	return w, pad, true
}

// Unfold extracts the sliding blocks of images in channels-first layout,
// (N, C, H, W), as Keras's unfold (PyTorch's, im2col): (N, C·kH·kW, L),
// where L counts the blocks row by row and a block's values are in
// (channel, kernel row, kernel col) order.
func Unfold(b Builder, x Value, kernelSize []int, o UnfoldOptions) Value {
	const op = "Unfold"
	if missing(b, op, []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	if len(s) != 4 {
		return failf(b, op, s, "the input %v must be 4-D, (batch, channels, rows, cols)", s)
	}
	w, pad, ok := unfoldWindow(b, op, kernelSize, o)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	img := Transpose(b, x, 0, 2, 3, 1) // (N, H, W, C)
	img = PadAxis(b, PadAxis(b, img, 1, pad[0], pad[0]), 2, pad[1], pad[1])
	rows, cols, err := w.outShape(img.Shape())
	if err != nil {
		return failf(b, op, s, "a block of %dx%d (kernel_size %v, dilation %v) is larger than the input %v's %dx%d with padding %v: give a smaller kernel or more padding",
			w.span(0), w.span(1), kernelSize, w.dilation, s, img.Shape()[1], img.Shape()[2], pad)
	}
	blocks := Stack(b, w.views(b, img), 4) // (N, rows, cols, C, kH·kW)
	k := w.size[0] * w.size[1]
	flat := b.Reshape(blocks, Shape{s[0], rows * cols, s[1] * k})
	return Transpose(b, flat, 0, 2, 1)
}

// Fold sums sliding blocks back into images, as Keras's fold (PyTorch's,
// col2im), the adjoint of Unfold: x is (N, C·kH·kW, L) with the blocks of
// images of outputSize (rows, cols) unfolded with the same kernel and
// options, and the result (N, C, rows, cols) adds up every block's value
// at each pixel.
func Fold(b Builder, x Value, outputSize, kernelSize []int, o UnfoldOptions) Value {
	const op = "Fold"
	if missing(b, op, []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	s := x.Shape()
	if len(s) != 3 {
		return failf(b, op, s, "the input %v must be 3-D, (batch, channels·kernel rows·kernel cols, blocks)", s)
	}
	size, ok := pair(b, op, "output_size", outputSize, 2, 0)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	w, pad, ok := unfoldWindow(b, op, kernelSize, o)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	padded := Shape{s[0], size[0] + 2*pad[0], size[1] + 2*pad[1], 1}
	rows, cols, err := w.outShape(padded)
	if err != nil {
		return failf(b, op, s, "a block of %dx%d (kernel_size %v, dilation %v) is larger than output_size %v with padding %v: give a smaller kernel or more padding",
			w.span(0), w.span(1), kernelSize, w.dilation, size, pad)
	}
	k := w.size[0] * w.size[1]
	if s[1]%k != 0 || s[2] != rows*cols {
		return failf(b, op, s, "the input %v does not hold blocks of %dx%d for an output of %v: want (batch, C·%d, %d)", s, w.size[0], w.size[1], size, k, rows*cols)
	}
	c := s[1] / k
	blocks := b.Reshape(Transpose(b, x, 0, 2, 1), Shape{s[0], rows, cols, c, k})
	var sum Value
	for a := 0; a < w.size[0]; a++ {
		for e := 0; e < w.size[1]; e++ {
			tap := b.Reshape(sliceAxis(b, blocks, 4, a*w.size[1]+e, 1), Shape{s[0], rows, cols, c})
			tap = unstridedAxis(b, tap, 1, a*w.dilation[0], padded[1], w.strides[0])
			tap = unstridedAxis(b, tap, 2, e*w.dilation[1], padded[2], w.strides[1])
			if sum == nil {
				sum = tap
			} else {
				sum = b.Add(sum, tap)
			}
		}
	}
	img := sliceAxis(b, sliceAxis(b, sum, 1, pad[0], size[0]), 2, pad[1], size[1])
	return Transpose(b, img, 0, 3, 1, 2)
}

// unstridedAxis is stridedAxis's adjoint: it places x's elements along
// axis at start, start+stride, ... in an axis of length total, zeros
// elsewhere.
func unstridedAxis(b Builder, x Value, axis, start, total, stride int) Value {
	s := x.Shape()
	n := s[axis]
	if stride > 1 {
		spread := append(append(s[:axis+1].Clone(), 1), s[axis+1:]...)
		x = PadAxis(b, b.Reshape(x, spread), axis+1, 0, stride-1)
		merged := s.Clone()
		merged[axis] = n * stride
		x = b.Reshape(x, merged)
	}
	x = PadAxis(b, x, axis, start, 0)
	if have := x.Shape()[axis]; have > total {
		return sliceAxis(b, x, axis, 0, total)
	} else if have < total {
		return PadAxis(b, x, axis, 0, total-have)
	}
	return x
}
