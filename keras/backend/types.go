package backend

import (
	"fmt"
	"strings"
)

// DType is the element type of a tensor: kerasgo's one dtype, for the
// engines, the layers (an input's dtype, a host layer's output) and
// saved configs alike. The zero DType is Float32, Keras's default.
type DType int

// The element types kerasgo uses. Float32 is the training default; Float64
// exists so gradient checks can run with enough precision. Int32 is for
// inputs of token ids only: a Func computes in one float dtype, and its
// int inputs go to Gather (as indices) or Cast. Int64 and String are host
// dtypes: model inputs and the outputs of layers that run on the host,
// before the engine (a lookup's int64 indices reach the engine as Int32;
// strings never do). BFloat16 and Float16 are compute dtypes of Keras's
// mixed-precision policies only: an engine that autocasts (Autocaster)
// computes the ops of a float32 Func in them, and no
// tensor, input or saved variable has them.
const (
	Float32 DType = iota
	Float64
	Int32
	Int64
	String
	BFloat16
	Float16
)

// dtypeNames are the Keras names of the dtypes, in the constants' order.
var dtypeNames = [...]string{"float32", "float64", "int32", "int64", "string", "bfloat16", "float16"}

// tensorDTypes is how many of dtypeNames a tensor or a config's dtype
// can be (the half-precision compute dtypes come after them).
const tensorDTypes = 5

// String returns the Keras name of the dtype ("float32", "int64", ...).
func (d DType) String() string {
	if d >= 0 && int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("DType(%d)", int(d))
}

// IsInteger reports whether d is an integer dtype (Int32, Int64).
func (d DType) IsInteger() bool { return d == Int32 || d == Int64 }

// ParseDType returns the dtype a Keras name denotes ("float32", "int32",
// "int64", "string", "float64"), or an error listing the names kerasgo
// has.
func ParseDType(name string) (DType, error) {
	for i, n := range dtypeNames[:tensorDTypes] {
		if n == name {
			return DType(i), nil
		}
	}
	return 0, fmt.Errorf("kerasgo has no dtype %q: it has %s", name, strings.Join(dtypeNames[:tensorDTypes], ", "))
}

// Shape is the size of each dimension of a tensor. A scalar has an empty
// shape. In Keras-level shapes (before a batch size is known) the batch
// dimension may be -1; shapes seen by a [Builder] are always concrete.
type Shape []int

// Size returns the number of elements (1 for a scalar). A shape with an
// unknown (-1) dimension has size -1.
func (s Shape) Size() int {
	n := 1
	for _, d := range s {
		if d < 0 {
			return -1
		}
		n *= d
	}
	return n
}

// Equal reports whether s and o have the same dimensions.
func (s Shape) Equal(o Shape) bool {
	if len(s) != len(o) {
		return false
	}
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

// UnknownAfterBatch reports whether a dimension after the first (the
// batch) is unknown (-1, Keras's None: any length).
func (s Shape) UnknownAfterBatch() bool {
	for i := 1; i < len(s); i++ {
		if s[i] < 0 {
			return true
		}
	}
	return false
}

// Clone returns a copy of s that does not share memory with it.
func (s Shape) Clone() Shape { return append(Shape(nil), s...) }

// String formats the shape the way Keras prints it, with None for an
// unknown dimension: (None, 28, 28, 1).
func (s Shape) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		if d < 0 {
			parts[i] = "None"
		} else {
			parts[i] = fmt.Sprint(d)
		}
	}
	if len(s) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// WithLeading formats s after a named leading dimension, for messages that
// tell a user what shape to give their data: Shape{20}.WithLeading("samples")
// is "(samples, 20)", Shape{}.WithLeading("samples") is "(samples,)".
func (s Shape) WithLeading(name string) string {
	if len(s) == 0 {
		return "(" + name + ",)"
	}
	inner := s.String()
	if len(s) == 1 {
		inner = strings.TrimSuffix(inner, ",)") + ")"
	}
	return "(" + name + ", " + inner[1:]
}

// Spec describes one input of a [Func]: its shape and dtype.
type Spec struct {
	Shape Shape
	DType DType
}

// Convert copies src into dst element by element, converting each value
// to dst's type (float64 to float32 rounds): the read-back every engine's
// ToFloat32 and ToFloat64 does. dst must be at least as long as src.
func Convert[D, S int32 | float32 | float64](dst []D, src []S) {
	for i, v := range src {
		dst[i] = D(v)
	}
}
