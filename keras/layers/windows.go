package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
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

// convOptions are the windows as ops' convolution options.
func (w windows) convOptions() ops.ConvOptions {
	return ops.ConvOptions{Strides: w.strides[:], Padding: w.padding, DilationRate: w.dilation[:]}
}
