//go:build libtorch

package libtorch

import (
	"slices"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"
)

// Autocasting (backend.AutocastOps) computes in half precision as Keras
// computes a layer under a mixed-precision policy: every op of a float32
// Func built while autocast is set takes its float operands in the
// half-precision dtype (a float32 one, a variable say, is cast once and
// the cast kept beside it, value.alt) and leaves its result in it (one
// libtorch computes in float32, a reduction or a softmax, is rounded to
// it). The values stay float32 to the Builder; an op built with autocast
// off takes float32 operands again, casting a half-precision one up.
// The casts are differentiable, so gradients reach the float32
// variables, and the backward pass of a half-precision op computes in
// half precision, as Keras's does.

// autocastDTypes are the half-precision dtypes the engine computes in on
// a device (backend.Capabilities.Autocast): bfloat16 everywhere (oneDNN's
// kernels on a CPU, with AMX or AVX-512 BF16 where it has them), and
// float16 on CUDA only, since libtorch 1.13 has no float16 matrix product
// or convolution on a CPU.
func autocastDTypes(device string) []backend.DType {
	if device == "cpu" {
		return []backend.DType{backend.BFloat16}
	}
	return []backend.DType{backend.BFloat16, backend.Float16}
}

// SetAutocast implements backend.AutocastOps: the ops of a float32 Func
// built from now on compute in d, if the device computes it
// (autocastDTypes), and in float32 otherwise.
func (o *eagerOps) SetAutocast(d backend.DType) backend.DType {
	before := o.autocast
	o.autocast = backend.Float32
	if o.dtype == backend.Float32 && slices.Contains(autocastDTypes(o.e.devName), d) {
		o.autocast, o.autocasts = d, true
	}
	o.operands = o.autocast
	return before
}

// RoundToAutocast implements backend.AutocastOps: x in the autocast
// dtype (rounded), or x itself with no autocast.
func (o *eagerOps) RoundToAutocast(x backend.Value) (backend.Value, error) {
	v := x.(*value)
	if o.autocast == backend.Float32 || v.isConst || v.dtype != backend.Float32 || v.half == o.autocast {
		return x, nil
	}
	t, err := o.inPrecision(v, o.autocast)
	if err != nil {
		return nil, err
	}
	return &value{t: t, shape: v.shape, dtype: v.dtype, half: o.autocast}, nil
}

// halfKind is libtorch's dtype for a precision: a half-precision dtype,
// or Float32.
func halfKind(d backend.DType) gotch.DType {
	switch d {
	case backend.BFloat16:
		return gotch.BFloat16
	case backend.Float16:
		return gotch.Half
	}
	return gotch.Float
}

// inPrecision is a float32 value's tensor in precision d (a half-precision
// dtype or Float32), cast once and kept in v.alt; any other value's
// tensor is returned as it is.
func (o *eagerOps) inPrecision(v *value, d backend.DType) (*ts.Tensor, error) {
	if v.dtype != backend.Float32 || v.half == d {
		return v.t, nil
	}
	if v.alt != nil && v.altHalf == d {
		return v.alt, nil
	}
	t, err := v.t.Totype(halfKind(d), false)
	if err != nil {
		return nil, err
	}
	o.arena = append(o.arena, t)
	v.alt, v.altHalf = t, d
	return t, nil
}

// roundResult records the precision of an op's result, rounding a
// float32 one to the autocast dtype if autocast is set (libtorch returns
// float32 from a reduction, a softmax or a comparison of half-precision
// operands).
func (o *eagerOps) roundResult(v *value) error {
	if v.dtype != backend.Float32 {
		return nil
	}
	switch v.t.DType() {
	case gotch.BFloat16:
		v.half = backend.BFloat16
	case gotch.Half:
		v.half = backend.Float16
	case gotch.Float:
		if o.autocast != backend.Float32 {
			t, err := v.t.Totype(halfKind(o.autocast), false)
			if err != nil {
				return err
			}
			o.arena = append(o.arena, t)
			v.t, v.half = t, o.autocast
		}
	}
	return nil
}
