package ops

import "github.com/kerasgo/kerasgo/keras/backend"

// Cast converts x to dtype. A computation holds one float dtype (the
// Builder's) plus int32 inputs, so the casts it can make are int32 to the
// float dtype and any value to its own dtype; other targets are an error
// that says so (round with Floor or Round to get whole numbers).
func Cast(b Builder, x Value, dtype backend.DType) Value {
	if missing(b, "Cast", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	switch {
	case dtype == x.DType():
		return x
	case dtype == b.DType() && x.DType() == backend.Int32:
		return b.Cast(x)
	}
	return failf(b, "Cast", x.Shape(), "cannot cast %v to %v inside a computation in %v: kerasgo computes in the one float dtype, with int32 inputs cast to it (use Floor or Round for whole numbers)", x.DType(), dtype, b.DType())
}

// StopGradient is x, through which no gradient flows.
func StopGradient(b Builder, x Value) Value {
	if missing(b, "StopGradient", []string{"variable"}, x) {
		return b.Fail(nil, b.Err())
	}
	return b.StopGradient(x)
}
