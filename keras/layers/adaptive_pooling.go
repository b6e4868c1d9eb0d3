package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// What the adaptive pooling layers (AdaptiveAveragePooling1D/2D/3D,
// AdaptiveMaxPooling1D/2D/3D) share: their output has a fixed size along
// each spatial axis whatever the input's, output i of an axis of length n
// pooling inputs floor(i·n/out) up to ceil((i+1)·n/out), as Keras's and
// PyTorch's adaptive pools.

// adaptiveShape checks the input (batch, spatial axes..., channels) and
// the output sizes, and returns the output shape.
func adaptiveShape(inputs []backend.Shape, sizes []int) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) != len(sizes)+2 {
		switch len(sizes) {
		case 1:
			return nil, fmt.Errorf("expected sequences of shape (batch, steps, channels), received %v", in)
		case 3:
			return nil, fmt.Errorf("expected volumes of shape (batch, depth, height, width, channels), received %v", in)
		}
		return nil, fmt.Errorf("expected images of shape (batch, height, width, channels), received %v", in)
	}
	out := in.Clone()
	for i, s := range sizes {
		if s < 1 {
			return nil, fmt.Errorf("output_size must be positive, got %v", sizes)
		}
		if in[i+1] >= 0 && in[i+1] < s {
			return nil, fmt.Errorf("output_size %v is larger than the input's %v along axis %d", sizes, in, i+1)
		}
		out[i+1] = s
	}
	return out, nil
}

// adaptiveConfig is Keras's config of an adaptive pooling layer.
func adaptiveConfig(sizes []int) serialization.Config {
	list := make([]any, len(sizes))
	for i, s := range sizes {
		list[i] = s
	}
	return serialization.Config{"output_size": list, "data_format": "channels_last"}
}

// readOutputSize reads Keras's output_size: one integer for every
// spatial axis, or one per axis.
func readOutputSize(r *serialization.Reader, axes int) []int {
	r.Expect("data_format", "channels_last", "kerasgo's layers take channels_last inputs")
	v, ok := r.Value("output_size")
	if !ok || v == nil {
		r.Fail("output_size", "is required")
		return nil
	}
	if f, isNum := v.(float64); isNum {
		out := make([]int, axes)
		for i := range out {
			out[i] = int(f)
		}
		return out
	}
	sizes := r.Ints("output_size")
	if len(sizes) != axes {
		r.Fail("output_size", "want %d sizes, got %v", axes, v)
	}
	return sizes
}
