package keras

import (
	"github.com/kerasgo/kerasgo/keras/backend"
)

// Array is host data for Fit, Evaluate and Predict: float32 values in
// row-major order with the number of samples as the first dimension, like a
// NumPy array. Token ids may come as Ints instead of Data (an int32 NumPy
// array): they reach a model input made with layers.IntInput exactly, with
// no float round trip. Text comes as Strings, for a model input made with
// layers.StringInput (a NumPy array of strings). It is backend.Array, the
// one host array that host layers and Adapt read too; its methods
// (Validate, Samples, Rows, Take, ...) are documented there.
type Array = backend.Array

// NewStringArray returns an Array of strings (raw text, categories),
// checking that shape fits them. With no shape it is one string per
// sample: Keras's np.array(["a", "b"]).
func NewStringArray(strs []string, shape ...int) (Array, error) {
	if len(shape) == 0 {
		shape = []int{len(strs)}
	}
	a := Array{Shape: shape, Strings: strs}
	return a, a.Validate("array")
}

// NewIntArray returns an Array of integer data (token ids), checking that
// shape fits it.
func NewIntArray(ints []int32, shape ...int) (Array, error) {
	a := Array{Shape: shape, Ints: ints}
	return a, a.Validate("array")
}

// NewArray returns an Array over data, checking that shape fits it.
func NewArray(data []float32, shape ...int) (Array, error) {
	a := Array{Shape: shape, Data: data}
	return a, a.Validate("array")
}

// ArrayOf is NewArray with the shape as a slice, so that it takes a
// dataset's (data, shape) results directly: keras.ArrayOf(split.InputData()).
func ArrayOf(data []float32, shape []int) (Array, error) { return NewArray(data, shape...) }
