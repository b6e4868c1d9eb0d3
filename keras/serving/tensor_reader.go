package serving

import (
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/kerasgo/kerasgo/keras"
)

// tensorReader reads JSON lists into one input's values, checking them
// against the input's spec.
type tensorReader struct {
	spec           tensorSpec
	allowNonFinite bool
	floats         []float32
	ints           []int32
	strs           []string
	path           []int // the indices leading to the value being read, for errors
}

// shapeOf returns the shape of nested lists, following the first element
// of each.
func shapeOf(v *jsonValue) []int {
	var s []int
	for v.kind == jsonArray {
		if v.isDense() {
			return append(s, v.shape...)
		}
		s = append(s, v.length())
		if len(v.elems) == 0 {
			break
		}
		v = v.elems[0]
	}
	return s
}

// read appends the values of v, which must have the given shape.
func (r *tensorReader) read(v *jsonValue, shape []int, where string) error {
	r.path = r.path[:0]
	return r.fill(v, shape, 0, where)
}

func (r *tensorReader) fill(v *jsonValue, shape []int, level int, where string) error {
	if level == len(shape) {
		if r.spec.strs {
			str, problem := stringValue(v)
			if problem != "" {
				return r.errorf(where, "%s", problem)
			}
			r.strs = append(r.strs, str)
			return nil
		}
		if isB64(v) {
			return r.errorf(where, "is a {\"b64\": ...} value, but the input takes numbers (%s): b64 is for string inputs", r.spec.dtype())
		}
		if v.kind != jsonNumber {
			return r.errorf(where, "is %s, want a number", v.kind)
		}
		if problem := r.add(v.num); problem != "" {
			return r.errorf(where, "%s", problem)
		}
		return nil
	}
	if v.kind != jsonArray || v.length() != shape[level] {
		what := v.kind.String()
		if v.kind == jsonArray {
			what = fmt.Sprintf("a list of %d", v.length())
		}
		return r.errorf(where, "is %s, want a list of %d (the lists must nest evenly, as a tensor's do: shape %s)", what, shape[level], formatShape(shape))
	}
	if v.isDense() && r.spec.strs && v.denseLen() > 0 {
		r.path = append(r.path, unravel(0, v.shape)...)
		return r.errorf(where, "is a number, want a string (or {\"b64\": \"<base64>\"} for binary data)")
	}
	if v.isDense() {
		if !slices.Equal(v.shape, shape[level:]) {
			return r.errorf(where, "has shape %s, want %s (the lists must nest evenly, as a tensor's do)", formatShape(v.shape), formatShape(shape[level:]))
		}
		for i := range v.denseLen() {
			if problem := r.add(v.denseAt(i)); problem != "" {
				r.path = append(r.path, unravel(i, v.shape)...)
				return r.errorf(where, "%s", problem)
			}
		}
		return nil
	}
	for i, e := range v.elems {
		r.path = append(r.path, i)
		if err := r.fill(e, shape, level+1, where); err != nil {
			return err
		}
		r.path = r.path[:len(r.path)-1]
	}
	return nil
}

// add appends one number, or returns what makes it one the input cannot
// take exactly.
func (r *tensorReader) add(f float64) (problem string) {
	if r.spec.ints {
		if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
			return fmt.Sprintf("is %v, but the input takes integers (token ids, int32)", f)
		}
		r.ints = append(r.ints, int32(f))
		return ""
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if !r.allowNonFinite {
			return fmt.Sprintf("is %v: NaN and infinite inputs are refused (serve with AllowNonFinite, -allow-nonfinite, to pass them to the model)", f)
		}
	} else if math.Abs(f) > math.MaxFloat32 {
		return fmt.Sprintf("is %v, outside float32's range (the input is float32)", f)
	}
	r.floats = append(r.floats, float32(f))
	return ""
}

// adopt takes a float32 tensor's numbers as a float input's values,
// without a copy, after checking them as add does (no NaN or infinity
// unless allowed); where names the tensor's first axis in errors.
func (r *tensorReader) adopt(v *jsonValue, where string) error {
	if !r.allowNonFinite {
		for i, f := range v.dense32 {
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				idx := unravel(i, v.shape)
				r.path = append(r.path[:0], idx[1:]...)
				return r.errorf(fmt.Sprintf("%s %d", where, idx[0]), "is %v: NaN and infinite inputs are refused (serve with AllowNonFinite, -allow-nonfinite, to pass them to the model)", f)
			}
		}
	}
	r.floats = v.dense32
	return nil
}

// unravel returns the indices of element i of a row-major tensor.
func unravel(i int, shape []int) []int {
	idx := make([]int, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] > 0 {
			idx[k], i = i%shape[k], i/shape[k]
		}
	}
	return idx
}

func (r *tensorReader) errorf(where, format string, args ...any) error {
	at := where
	for _, i := range r.path {
		at += "[" + strconv.Itoa(i) + "]"
	}
	return fmt.Errorf("input %q: %s %s", r.spec.name, at, fmt.Sprintf(format, args...))
}

// isB64 reports whether v is TensorFlow Serving's encoding of binary
// data: an object with the one key "b64".
func isB64(v *jsonValue) bool {
	return v.kind == jsonObject && len(v.keys) == 1 && v.keys[0] == "b64"
}

// stringValue reads a string input's value: a JSON string, or
// {"b64": "<base64>"} (TensorFlow Serving's binary values, standard
// base64 with padding); problem says what is wrong with any other.
func stringValue(v *jsonValue) (str, problem string) {
	switch {
	case v.kind == jsonString:
		return v.str, ""
	case isB64(v):
		b := v.vals[0]
		if b.kind != jsonString {
			return "", fmt.Sprintf("is {\"b64\": %s}: want a base64 string", b.kind)
		}
		data, err := base64.StdEncoding.DecodeString(b.str)
		if err != nil {
			return "", fmt.Sprintf("is {\"b64\": ...} that is not standard base64 (%v)", err)
		}
		return string(data), ""
	}
	return "", fmt.Sprintf("is %s, want a string (or {\"b64\": \"<base64>\"} for binary data)", v.kind)
}

// array returns the values read as an Array of the given shape.
func (r *tensorReader) array(shape []int) keras.Array {
	if r.spec.strs {
		return keras.Array{Shape: shape, Strings: r.strs}
	}
	if r.spec.ints {
		return keras.Array{Shape: shape, Ints: r.ints}
	}
	return keras.Array{Shape: shape, Data: r.floats}
}
