package backend

import "fmt"

// Array is data on the host: values in row-major order with the number of
// samples as the first dimension, like a NumPy array. It is kerasgo's one
// host array: what Fit, Evaluate and Predict take (keras.Array is this
// type), what host layers (lookups, TextVectorization, Hashing) read and
// give, and what Adapt reads. It holds exactly one of Data (float32), Ints
// (integer data such as token ids: they reach an integer input exactly,
// with no float round trip) and Strings (text, for a string input).
type Array struct {
	Shape   []int
	Data    []float32
	Ints    []int32  // integer data instead of Data (token ids)
	Strings []string // text instead of Data; set one of the three
}

// Validate checks that a holds one kind of values (Data, Ints or
// Strings) and as many of them as its Shape says; what names the array in
// the error ("x", "targets").
func (a Array) Validate(what string) error {
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
	if got := a.Len(); n != got {
		return fmt.Errorf("%s has shape %v (%d values) but holds %d values", what, a.Shape, n, got)
	}
	return nil
}

// ForNames returns a as the one array of a model with one input or
// output (names; what, "input" or "output", names them in errors), so
// that an Array is a keras.ArraySet; with several names it is an error
// that says to give one array per name.
func (a Array) ForNames(names []string, what string) ([]Array, error) {
	if len(names) != 1 {
		return nil, fmt.Errorf("the model has %d %ss %v but got one array: give keras.Arrays{...} with one array per %s, in this order, or keras.NamedArrays by name", len(names), what, names, what)
	}
	return []Array{a}, nil
}

// Len returns the number of values the array holds.
func (a Array) Len() int {
	if a.Strings != nil {
		return len(a.Strings)
	}
	if a.Ints != nil {
		return len(a.Ints)
	}
	return len(a.Data)
}

// DType returns the dtype of the array's values: String, Int32 or
// Float32.
func (a Array) DType() DType {
	switch {
	case a.Strings != nil:
		return String
	case a.Ints != nil:
		return Int32
	}
	return Float32
}

// Samples returns the number of samples (the first dimension).
func (a Array) Samples() int { return a.Shape[0] }

// SampleSize returns the number of values of one sample.
func (a Array) SampleSize() int { return Shape(a.Shape[1:]).Size() }

// Rows returns the samples [from, to) of a, sharing its data (a batch of
// a hand-written loop: model.TrainOnBatch(ctx, x.Rows(0, 32), ...)). Like
// a slice expression, it panics when the range is outside 0..Samples().
func (a Array) Rows(from, to int) Array {
	if from < 0 || to < from || to > a.Samples() {
		panic(fmt.Sprintf("Array.Rows(%d, %d) of an array of %d samples", from, to, a.Samples()))
	}
	n := a.SampleSize()
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
	out, _, _ := a.TakeInto(idx, nil, nil)
	return out
}

// TakeInto is Take that copies the numbers into buf or ibuf (grown as
// needed) and returns them for reuse: a batch loop gathers every batch
// into the same memory.
func (a Array) TakeInto(idx []int, buf []float32, ibuf []int32) (Array, []float32, []int32) {
	n := a.SampleSize()
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
