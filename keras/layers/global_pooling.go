package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

func globalPoolShape(inputs []backend.Shape, keepDims bool) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) != 4 || in[1] == 0 || in[2] == 0 || in[3] <= 0 { // rows and cols may be -1: any size
		return nil, fmt.Errorf("expected an input of shape (batch, rows, cols, channels), received %v", in)
	}
	if keepDims {
		return backend.Shape{in[0], 1, 1, in[3]}, nil
	}
	return backend.Shape{in[0], in[3]}, nil
}

// readGlobalPool reads a 2-D global pooling layer's config and returns
// its keepdims.
func readGlobalPool(r *serialization.Reader) bool {
	r.Expect("data_format", "channels_last", "kerasgo's pooling takes channels_last input")
	return r.Bool("keepdims", false)
}
