package ops

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Value is a symbolic tensor of the computation being built.
type Value = backend.Value

// Builder builds one computation; every op takes it first.
type Builder = backend.Builder

// Shape is a tensor's dimensions.
type Shape = backend.Shape

// failf records an error naming the op, unless the builder already has
// one, and returns a placeholder of shape s.
func failf(b Builder, op string, s Shape, format string, args ...any) Value {
	return b.Fail(s, fmt.Errorf("ops.%s: %s", op, fmt.Sprintf(format, args...)))
}

// missing reports whether any value is nil, recording an error naming the
// op and the argument.
func missing(b Builder, op string, names []string, vs ...Value) bool {
	for i, v := range vs {
		if v == nil {
			failf(b, op, nil, "argument %s is nil", names[i])
			return true
		}
	}
	return false
}

// axisOf normalises a possibly negative axis of a tensor of rank r.
func axisOf(b Builder, op string, x Value, axis int) (int, bool) {
	r := len(x.Shape())
	if axis < -r || axis >= r {
		failf(b, op, x.Shape(), "axis %d is out of range for an input of shape %v (rank %d): use an axis in [%d, %d)", axis, x.Shape(), r, -r, r)
		return 0, false
	}
	if axis < 0 {
		axis += r
	}
	return axis, true
}

// axesOf normalises a list of axes (nil: every axis), refusing repeats.
func axesOf(b Builder, op string, x Value, axes []int) ([]int, bool) {
	r := len(x.Shape())
	if axes == nil {
		all := make([]int, r)
		for i := range all {
			all[i] = i
		}
		return all, true
	}
	out, err := backend.NormalizeAxes(r, axes)
	if err != nil {
		failf(b, op, x.Shape(), "axis %v for an input of shape %v: %v", axes, x.Shape(), err)
		return nil, false
	}
	return out, true
}

// scalar is a constant of the builder's dtype.
func scalar(b Builder, v float64) Value { return b.Scalar(v) }

// constant is a constant tensor of the builder's dtype.
func constant(b Builder, data []float64, s Shape) Value {
	if len(s) == 0 {
		return b.Scalar(data[0])
	}
	return b.Constant(data, s)
}

// filled is a constant of shape s holding v everywhere.
func filled(b Builder, s Shape, v float64) Value {
	data := make([]float64, s.Size())
	for i := range data {
		data[i] = v
	}
	return constant(b, data, s)
}

// moveAxis moves axis from to position to (both normalised).
func moveAxis(b Builder, x Value, from, to int) Value {
	if from == to {
		return x
	}
	r := len(x.Shape())
	perm := make([]int, 0, r)
	for i := 0; i < r; i++ {
		if i != from {
			perm = append(perm, i)
		}
	}
	perm = append(perm[:to], append([]int{from}, perm[to:]...)...)
	return b.Transpose(x, perm...)
}

// sliceAxis takes [start, start+size) of axis.
func sliceAxis(b Builder, x Value, axis, start, size int) Value {
	s := x.Shape()
	if start == 0 && size == s[axis] {
		return x
	}
	begin := make([]int, len(s))
	sz := s.Clone()
	begin[axis], sz[axis] = start, size
	return b.Slice(x, begin, sz)
}

// takeAxis takes the given (valid) positions of axis: a gather with
// constant indices, differentiable in x.
func takeAxis(b Builder, x Value, axis int, idx []int) Value {
	s := x.Shape()
	if len(idx) == s[axis] {
		same := true
		for i, v := range idx {
			if v != i {
				same = false
				break
			}
		}
		if same {
			return x
		}
	}
	f := make([]float64, len(idx))
	for i, v := range idx {
		f[i] = float64(v)
	}
	front := moveAxis(b, x, axis, 0)
	g := b.Gather(front, b.Constant(f, Shape{len(idx)}))
	return moveAxis(b, g, 0, axis)
}

// broadcastTo expands x to shape s (NumPy rules) by adding zeros: its
// gradient sums back over the broadcast axes.
func broadcastTo(b Builder, x Value, s Shape) Value {
	if x.Shape().Equal(s) {
		return x
	}
	return b.Add(x, filled(b, s, 0))
}

// notZero is 1 where x is not 0 (NaN counts as not 0, as in NumPy).
func notZero(b Builder, x Value) Value {
	return b.Sub(scalar(b, 1), b.Equal(x, zerosLike(b, x)))
}

func zerosLike(b Builder, x Value) Value { return filled(b, x.Shape(), 0) }

// maskedDiv is num/den where mask (1 or 0, no gradient) is 1 and 0 where
// it is 0, without dividing by the masked denominators (a 0/0 there would
// be NaN in the value and the gradient).
func maskedDiv(b Builder, num, den, mask Value) Value {
	return b.Mul(mask, b.Div(num, Where(b, mask, den, filled(b, den.Shape(), 1))))
}
