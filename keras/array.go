package keras

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Array is host data for Fit, Evaluate and Predict: float32 values in
// row-major order with the number of samples as the first dimension, like a
// NumPy array. Token ids may come as Ints instead of Data (an int32 NumPy
// array): they reach a model input made with layers.IntInput exactly, with
// no float round trip. Text comes as Strings, for a model input made with
// layers.StringInput (a NumPy array of strings).
type Array struct {
	Shape   []int
	Data    []float32
	Ints    []int32  // integer data instead of Data (token ids)
	Strings []string // text instead of Data; set one of the three
}

// NewStringArray returns an Array of strings (raw text, categories),
// checking that shape fits them. With no shape it is one string per
// sample: Keras's np.array(["a", "b"]).
func NewStringArray(strs []string, shape ...int) (Array, error) {
	if len(shape) == 0 {
		shape = []int{len(strs)}
	}
	a := Array{Shape: shape, Strings: strs}
	return a, a.check("array")
}

// NewIntArray returns an Array of integer data (token ids), checking that
// shape fits it.
func NewIntArray(ints []int32, shape ...int) (Array, error) {
	a := Array{Shape: shape, Ints: ints}
	return a, a.check("array")
}

// NewArray returns an Array over data, checking that shape fits it.
func NewArray(data []float32, shape ...int) (Array, error) {
	a := Array{Shape: shape, Data: data}
	return a, a.check("array")
}

// ArrayOf is NewArray with the shape as a slice, so that it takes a
// dataset's (data, shape) results directly: keras.ArrayOf(split.InputData()).
func ArrayOf(data []float32, shape []int) (Array, error) { return NewArray(data, shape...) }

// Validate checks that a holds one kind of values (Data, Ints or
// Strings) and as many of them as its Shape says; what names the array in
// the error ("x", "targets").
func (a Array) Validate(what string) error { return a.check(what) }

func (a Array) check(what string) error {
	if len(a.Shape) == 0 {
		return fmt.Errorf("%s has no shape: give its dimensions, samples first, e.g. (60000, 28, 28, 1)", what)
	}
	n := 1
	for _, d := range a.Shape {
		if d < 0 {
			return fmt.Errorf("%s has shape %v with a negative dimension", what, a.Shape)
		}
		n *= d
	}
	if (a.Data != nil && a.Ints != nil) || (a.Strings != nil && (a.Data != nil || a.Ints != nil)) {
		return fmt.Errorf("%s holds more than one of Data, Ints and Strings: give one of them", what)
	}
	if got := a.len(); n != got {
		return fmt.Errorf("%s has shape %v (%d values) but holds %d values", what, a.Shape, n, got)
	}
	return nil
}

// len is the number of values the array holds.
func (a Array) len() int {
	if a.Strings != nil {
		return len(a.Strings)
	}
	if a.Ints != nil {
		return len(a.Ints)
	}
	return len(a.Data)
}

// dtype is the engine dtype the array's values travel as.
func (a Array) dtype() backend.DType {
	if a.Ints != nil {
		return backend.Int32
	}
	return backend.Float32
}

// Samples returns the number of samples (the first dimension).
func (a Array) Samples() int { return a.Shape[0] }

func (a Array) sampleSize() int { return backend.Shape(a.Shape[1:]).Size() }

// Rows returns the samples [from, to) of a, sharing its data (a batch of
// a hand-written loop: model.TrainOnBatch(ctx, x.Rows(0, 32), ...)). Like
// a slice expression, it panics when the range is outside 0..Samples().
func (a Array) Rows(from, to int) Array {
	if from < 0 || to < from || to > a.Samples() {
		panic(fmt.Sprintf("Array.Rows(%d, %d) of an array of %d samples", from, to, a.Samples()))
	}
	return a.rows(from, to)
}

// rows returns a new Array holding the samples [from, to).
func (a Array) rows(from, to int) Array {
	n := a.sampleSize()
	shape := append([]int{to - from}, a.Shape[1:]...)
	if a.Strings != nil {
		return Array{Shape: shape, Strings: a.Strings[from*n : to*n]}
	}
	if a.Ints != nil {
		return Array{Shape: shape, Ints: a.Ints[from*n : to*n]}
	}
	return Array{Shape: shape, Data: a.Data[from*n : to*n]}
}

// Take returns a new Array of the samples at idx, in that order (NumPy's
// np.take(a, idx, axis=0)); strings are shared, numbers copied. It panics
// when an index is outside 0..Samples()-1, as indexing a slice does.
func (a Array) Take(idx []int) Array {
	out, _, _ := a.gatherArray(idx, nil, nil)
	return out
}

// gatherArray copies the samples at idx into buf (grown as needed) and
// returns them as an Array, with buf for reuse.
func (a Array) gatherArray(idx []int, buf []float32, ibuf []int32) (Array, []float32, []int32) {
	n := a.sampleSize()
	shape := append([]int{len(idx)}, a.Shape[1:]...)
	if a.Strings != nil { // the strings are shared, not copied
		strs := make([]string, 0, len(idx)*n)
		for _, i := range idx {
			strs = append(strs, a.Strings[i*n:(i+1)*n]...)
		}
		return Array{Shape: shape, Strings: strs}, buf, ibuf
	}
	if a.Ints != nil {
		ibuf = ibuf[:0]
		for _, i := range idx {
			ibuf = append(ibuf, a.Ints[i*n:(i+1)*n]...)
		}
		return Array{Shape: shape, Ints: ibuf}, buf, ibuf
	}
	buf = buf[:0]
	for _, i := range idx {
		buf = append(buf, a.Data[i*n:(i+1)*n]...)
	}
	return Array{Shape: shape, Data: buf}, buf, ibuf
}
