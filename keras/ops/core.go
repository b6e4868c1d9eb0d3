package ops

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
)

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

// SaturateCast is Cast with x first clipped to dtype's finite range, so
// that an infinity becomes dtype's largest finite value of its sign:
// Keras's ops.saturate_cast. Its casts are Cast's (int32 to the float
// dtype, whose range holds int32's, and any value to its own dtype);
// narrower integer targets such as uint8 are an error, as for Cast: clip
// with Clip to their range instead.
func SaturateCast(b Builder, x Value, dtype backend.DType) Value {
	if missing(b, "SaturateCast", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	switch {
	case x.DType() == backend.Int32 && dtype == b.DType():
		return b.Cast(x)
	case dtype == x.DType() && dtype == backend.Float32:
		return Clip(b, x, -math.MaxFloat32, math.MaxFloat32)
	case dtype == x.DType() && dtype == backend.Float64:
		return Clip(b, x, -math.MaxFloat64, math.MaxFloat64)
	}
	return failf(b, "SaturateCast", x.Shape(), "cannot cast %v to %v inside a computation in %v: kerasgo computes in the one float dtype, with int32 inputs cast to it (clip with Clip to a narrower type's range)", x.DType(), dtype, b.DType())
}

// StopGradient is x, through which no gradient flows.
func StopGradient(b Builder, x Value) Value {
	if missing(b, "StopGradient", []string{"variable"}, x) {
		return b.Fail(nil, b.Err())
	}
	return b.StopGradient(x)
}
