package serving

import (
	"fmt"
	"math"
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
	path           []int // the indices leading to the value being read, for errors
}

// shapeOf returns the shape of nested lists, following the first element
// of each.
func shapeOf(v *jsonValue) []int {
	var s []int
	for v.kind == jsonArray {
		s = append(s, v.length())
		if v.nums != nil || len(v.elems) == 0 {
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
		if v.kind != jsonNumber {
			return r.errorf(where, "is %s, want a number", v.kind)
		}
		return r.add(v.num, where)
	}
	if v.kind != jsonArray || v.length() != shape[level] {
		what := v.kind.String()
		if v.kind == jsonArray {
			what = fmt.Sprintf("a list of %d", v.length())
		}
		return r.errorf(where, "is %s, want a list of %d (the lists must nest evenly, as a tensor's do: shape %s)", what, shape[level], formatShape(shape))
	}
	if v.nums != nil {
		if level != len(shape)-1 {
			return r.errorf(where, "holds numbers, want lists (shape %s)", formatShape(shape))
		}
		for i, f := range v.nums {
			r.path = append(r.path, i)
			if err := r.add(f, where); err != nil {
				return err
			}
			r.path = r.path[:len(r.path)-1]
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

// add appends one number, refusing what the input cannot take exactly.
func (r *tensorReader) add(f float64, where string) error {
	if r.spec.ints {
		if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
			return r.errorf(where, "is %v, but the input takes integers (token ids, int32)", f)
		}
		r.ints = append(r.ints, int32(f))
		return nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if !r.allowNonFinite {
			return r.errorf(where, "is %v: NaN and infinite inputs are refused (serve with AllowNonFinite, -allow-nonfinite, to pass them to the model)", f)
		}
	} else if math.Abs(f) > math.MaxFloat32 {
		return r.errorf(where, "is %v, outside float32's range (the input is float32)", f)
	}
	r.floats = append(r.floats, float32(f))
	return nil
}

func (r *tensorReader) errorf(where, format string, args ...any) error {
	at := where
	for _, i := range r.path {
		at += "[" + strconv.Itoa(i) + "]"
	}
	return fmt.Errorf("input %q: %s %s", r.spec.name, at, fmt.Sprintf(format, args...))
}

// array returns the values read as an Array of the given shape.
func (r *tensorReader) array(shape []int) keras.Array {
	if r.spec.ints {
		return keras.Array{Shape: shape, Ints: r.ints}
	}
	return keras.Array{Shape: shape, Data: r.floats}
}
