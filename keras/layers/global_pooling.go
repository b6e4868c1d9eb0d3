package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

func globalPoolShape(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) != 4 || in[1] == 0 || in[2] == 0 || in[3] <= 0 { // rows and cols may be -1: any size
		return nil, fmt.Errorf("expected an input of shape (batch, rows, cols, channels), received %v", in)
	}
	return backend.Shape{in[0], in[3]}, nil
}

func readGlobalPool(r *serialization.Reader) {
	r.Expect("data_format", "channels_last", "kerasgo's pooling takes channels_last input")
	r.Expect("keepdims", false, "")
}
