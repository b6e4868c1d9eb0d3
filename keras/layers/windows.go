package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// windows describes sliding windows over images (batch, rows, cols,
// channels): their size, strides, dilation and Keras's padding. Layers
// without an op of their own (average pooling, depthwise and dilated
// convolutions) are written as sums over the window's offsets of strided
// views of the input, each view (batch, outRows, outCols, channels) the
// input pixel at that offset of every window.
type windows struct {
	size, strides, dilation [2]int
	padding                 backend.Padding
}

// span is how far a window reaches along axis i.
func (w windows) span(i int) int { return (w.size[i]-1)*w.dilation[i] + 1 }

// check reports settings that make no windows.
func (w windows) check() error {
	for i := 0; i < 2; i++ {
		if w.size[i] < 1 || w.strides[i] < 1 || w.dilation[i] < 1 {
			return fmt.Errorf("window size, strides and dilation must be positive, got %v, %v and %v", w.size, w.strides, w.dilation)
		}
	}
	if w.padding != backend.Valid && w.padding != backend.Same {
		return fmt.Errorf("padding must be \"valid\" or \"same\", got %q", w.padding)
	}
	return nil
}

// outShape is the output's spatial size for an input of shape in, as
// Keras computes it.
func (w windows) outShape(in backend.Shape) (rows, cols int, err error) {
	size := func(n, i int) int {
		if n < 0 { // any length in, any length out
			return -1
		}
		out, _, _ := backend.ConvOutputSize(n, w.span(i), w.strides[i], w.padding)
		return max(out, 0)
	}
	rows, cols = size(in[1], 0), size(in[2], 1)
	if rows == 0 || cols == 0 {
		return 0, 0, fmt.Errorf("a window of %dx%d is larger than the input's %dx%d (input %v)", w.span(0), w.span(1), in[1], in[2], in)
	}
	return rows, cols, nil
}

// image checks that in is a batch of images with at least one channel
// and that the windows fit in it, and returns the output's spatial size.
func (w windows) image(in backend.Shape) (rows, cols int, err error) {
	if len(in) != 4 || in[3] <= 0 {
		return 0, 0, fmt.Errorf("expected an input of shape (batch, rows, cols, channels), received %v", in)
	}
	if err := w.check(); err != nil {
		return 0, 0, err
	}
	return w.outShape(in)
}

// views returns, for each window offset (a, b) in row-major order, the
// strided view of x (padded with zeros for "same") at that offset.
func (w windows) views(bl backend.Builder, x backend.Value) []backend.Value {
	in := x.Shape()
	rows, cols, err := w.outShape(in)
	if err != nil {
		panic(err) // Build checked it
	}
	if w.padding == backend.Same {
		_, top, totalH := backend.ConvOutputSize(in[1], w.span(0), w.strides[0], w.padding)
		_, left, totalW := backend.ConvOutputSize(in[2], w.span(1), w.strides[1], w.padding)
		x = padAxis(bl, x, 1, top, totalH-top)
		x = padAxis(bl, x, 2, left, totalW-left)
	}
	var out []backend.Value
	for a := 0; a < w.size[0]; a++ {
		rowsAt := stridedAxis(bl, x, 1, a*w.dilation[0], rows, w.strides[0])
		for b := 0; b < w.size[1]; b++ {
			out = append(out, stridedAxis(bl, rowsAt, 2, b*w.dilation[1], cols, w.strides[1]))
		}
	}
	return out
}

// stridedAxis takes n elements along axis, from start, stride apart.
func stridedAxis(b backend.Builder, x backend.Value, axis, start, n, stride int) backend.Value {
	s := x.Shape()
	have := s[axis] - start
	need := n * stride // take n*stride, then every stride-th
	if have < need {
		x = padAxis(b, x, axis, 0, need-have)
		s = x.Shape()
	}
	begin := make([]int, len(s))
	begin[axis] = start
	size := s.Clone()
	size[axis] = need
	x = b.Slice(x, begin, size)
	if stride == 1 {
		return x
	}
	split := append(append(s[:axis].Clone(), n, stride), s[axis+1:]...)
	x = b.Reshape(x, split)
	first := make([]int, len(split))
	one := backend.Shape(split).Clone()
	one[axis+1] = 1
	x = b.Slice(x, first, one)
	out := s.Clone()
	out[axis] = n
	return b.Reshape(x, out)
}
