package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Categorical outputs as Keras's preprocessing layers encode integer
// indices (numerical_utils.encode_categorical_inputs): "int" as they are,
// "one_hot", "multi_hot" or "count" vectors of depth entries. An index
// outside [0, depth) encodes as zeros, as on Keras's JAX backend.

// checkCategoricalMode reports an output mode Keras does not have.
func checkCategoricalMode(mode string, withInt bool) error {
	switch mode {
	case "one_hot", "multi_hot", "count":
		return nil
	case "int":
		if withInt {
			return nil
		}
	}
	if withInt {
		return fmt.Errorf("unknown output mode %q: use int, one_hot, multi_hot or count", mode)
	}
	return fmt.Errorf("unknown output mode %q: use one_hot, multi_hot or count", mode)
}

// categoricalShape is the output shape of encoding indices of shape in.
func categoricalShape(in backend.Shape, mode string, depth int) (backend.Shape, error) {
	switch mode {
	case "int":
		return in.Clone(), nil
	case "one_hot":
		if len(in) > 1 && in[len(in)-1] == 1 {
			return append(in[:len(in)-1].Clone(), depth), nil
		}
		return append(in.Clone(), depth), nil
	}
	if len(in) != 2 {
		return nil, fmt.Errorf("%s encodes inputs of shape (batch, indices), received %v", mode, in)
	}
	return backend.Shape{in[0], depth}, nil
}

// encodeCategorical encodes x's indices.
func encodeCategorical(b backend.Builder, x backend.Value, mode string, depth int) backend.Value {
	x = asFloat(b, x)
	if mode == "int" {
		return x
	}
	s := x.Shape()
	if mode == "one_hot" && len(s) > 1 && s[len(s)-1] == 1 {
		s = s[:len(s)-1]
		x = b.Reshape(x, s)
	}
	hot := oneHot(b, x, depth)
	if mode == "one_hot" {
		return hot
	}
	counts := b.Sum(hot, 1)
	if mode == "count" {
		return counts
	}
	return b.Minimum(counts, b.Scalar(1))
}

// oneHot is x's one-hot vectors along a new last axis: 1 where |x - k|
// < 1/2, so that no engine reads outside the depth for a stray index.
func oneHot(b backend.Builder, x backend.Value, depth int) backend.Value {
	s := x.Shape()
	classes := make([]float64, depth)
	for k := range classes {
		classes[k] = float64(k)
	}
	shape := make(backend.Shape, len(s)+1)
	for i := range shape {
		shape[i] = 1
	}
	shape[len(s)] = depth
	d := b.Sub(b.Reshape(x, append(s.Clone(), 1)), b.Constant(classes, shape))
	return b.Greater(b.Scalar(0.5), b.Maximum(d, b.Neg(d)))
}

// asFloat casts token ids (an int32 input) to the computation's floats.
func asFloat(b backend.Builder, x backend.Value) backend.Value {
	if x.DType() == backend.Int32 {
		return b.Cast(x)
	}
	return x
}
