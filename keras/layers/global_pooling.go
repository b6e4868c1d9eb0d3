package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// globalPoolShape is the output shape of a 2-D global pooling layer.
func globalPoolShape(inputs []backend.Shape, keepDims bool) (backend.Shape, error) {
	return globalPoolShapeOf(inputs, 2, keepDims)
}

// globalPoolShapeOf is the output shape of a global pooling layer over
// the given number of spatial axes (2: images, 3: volumes), each of which
// may be of any length (-1).
func globalPoolShapeOf(inputs []backend.Shape, spatial int, keepDims bool) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	ok := len(in) == spatial+2 && in[spatial+1] > 0
	for _, n := range in[1 : len(in)-1] {
		ok = ok && n != 0
	}
	if !ok {
		return nil, fmt.Errorf("expected an input of shape (batch, %s, channels), received %v", map[int]string{2: "rows, cols", 3: "depth, rows, cols"}[spatial], in)
	}
	if keepDims {
		out := backend.Shape{in[0]}
		for range spatial {
			out = append(out, 1)
		}
		return append(out, in[spatial+1]), nil
	}
	return backend.Shape{in[0], in[spatial+1]}, nil
}

// globalPool3D reduces volumes over their depth, rows and columns with
// reduce (ops.Mean, ops.Max), keeping them as axes of 1 if keepDims.
func globalPool3D(b backend.Builder, x backend.Value, keepDims bool, reduce func(ops.Builder, ops.Value, ...ops.AxisOption) ops.Value) backend.Value {
	opts := []ops.AxisOption{ops.Axis(1, 2, 3)}
	if keepDims {
		opts = append(opts, ops.KeepDims())
	}
	return reduce(b, x, opts...)
}

// readGlobalPool reads a 2-D global pooling layer's config and returns
// its keepdims.
func readGlobalPool(r *serialization.Reader) bool {
	r.Expect("data_format", "channels_last", "kerasgo's pooling takes channels_last input")
	return r.Bool("keepdims", false)
}
