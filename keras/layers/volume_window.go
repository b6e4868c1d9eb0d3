package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// volumeWindows are windows over volumes (batch, depth, rows, cols,
// channels), the 3-D layers' counterpart of windows: their size, strides,
// dilation and Keras's padding. ops computes them (keras/ops/volume.go).
type volumeWindows struct {
	size, strides, dilation [3]int
	padding                 backend.Padding
}

// volumeConvWindows fills Keras's defaults (strides and dilation of 1,
// "valid") into a 3-D window.
func volumeConvWindows(size, strides, dilation [3]int, padding string) volumeWindows {
	ones := func(v [3]int) [3]int {
		if v == ([3]int{}) {
			return [3]int{1, 1, 1}
		}
		return v
	}
	p := backend.Padding(padding)
	if p == "" {
		p = backend.Valid
	}
	return volumeWindows{size: size, strides: ones(strides), dilation: ones(dilation), padding: p}
}

// volumePoolWindows are a 3-D pool's windows: size (2, 2, 2) and strides
// the size by default, as Keras.
func volumePoolWindows(size, strides [3]int, padding string) volumeWindows {
	if size == ([3]int{}) {
		size = [3]int{2, 2, 2}
	}
	if strides == ([3]int{}) {
		strides = size
	}
	return volumeConvWindows(size, strides, [3]int{1, 1, 1}, padding)
}

// volume checks that in is a batch of volumes with at least one channel
// and that the windows fit in it, and returns the output's spatial size
// (-1 where the input's length is free).
func (w volumeWindows) volume(in backend.Shape) ([3]int, error) {
	var out [3]int
	if len(in) != 5 || in[4] <= 0 {
		return out, fmt.Errorf("expected an input of shape (batch, depth, rows, cols, channels), received %v", in)
	}
	for i := range 3 {
		if w.size[i] < 1 || w.strides[i] < 1 || w.dilation[i] < 1 {
			return out, fmt.Errorf("window size, strides and dilation must be positive, got %v, %v and %v", w.size, w.strides, w.dilation)
		}
	}
	if w.padding != backend.Valid && w.padding != backend.Same {
		return out, fmt.Errorf("padding must be \"valid\" or \"same\", got %q", w.padding)
	}
	if w.dilation != [3]int{1, 1, 1} && w.strides != [3]int{1, 1, 1} {
		return out, fmt.Errorf("dilation_rate %v needs strides of 1, as in Keras; got %v", w.dilation, w.strides)
	}
	for i := range 3 {
		n := in[i+1]
		if n < 0 { // any length in, any length out
			out[i] = -1
			continue
		}
		span := (w.size[i]-1)*w.dilation[i] + 1
		o, _, _ := backend.ConvOutputSize(n, span, w.strides[i], w.padding)
		if o <= 0 {
			return out, fmt.Errorf("a window of %v (dilation %v) is larger than the input %v", w.size, w.dilation, in)
		}
		out[i] = o
	}
	return out, nil
}

// convOptions are the windows as ops' convolution options.
func (w volumeWindows) convOptions() ops.ConvOptions {
	return ops.ConvOptions{Strides: w.strides[:], Padding: w.padding, DilationRate: w.dilation[:]}
}

// poolOptions are the windows as ops' pooling options.
func (w volumeWindows) poolOptions() ops.PoolOptions {
	return ops.PoolOptions{Strides: w.strides[:], Padding: w.padding}
}

// poolConfig is Keras's config of a 3-D pooling layer.
func (w volumeWindows) poolConfig() serialization.Config {
	return serialization.Config{"pool_size": w.size[:], "padding": string(w.padding), "strides": w.strides[:], "data_format": "channels_last"}
}

// readVolumePool reads a 3-D pooling layer's pool_size, strides and
// padding.
func readVolumePool(r *serialization.Reader) volumeWindows {
	size := r.PositiveTriple("pool_size", [3]int{2, 2, 2})
	strides := r.PositiveTriple("strides", size)
	r.Expect("data_format", "channels_last", "kerasgo's pooling takes channels_last input")
	return volumePoolWindows(size, strides, r.String("padding", "valid"))
}

// oneVolume checks for one input of volumes (batch, depth, rows, cols,
// channels).
func oneVolume(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err == nil && len(in) != 5 {
		err = fmt.Errorf("expected volumes of shape (batch, depth, rows, cols, channels), received %v", in)
	}
	return in, err
}
