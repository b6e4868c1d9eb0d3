package backend

import "math"

// DropoutOps is an optional capability of an [Ops]: Keras's dropout in
// training as fused ops. An engine implements it only if it matches
// [DropoutReference] within the conformance tolerance (with its own
// random numbers); the checked Builder uses it when present and the
// reference otherwise.
type DropoutOps interface {
	// Dropout gets x and a rate in [0, 1).
	Dropout(x Value, rate float64) (Value, error)
}

// DropoutReference is dropout written with Builder ops: each value of x
// is kept with probability 1-rate (a fresh uniform sample above rate) and
// scaled by 1/(1-rate), or zeroed:
//
//	y = x · (u > rate) · 1/(1-rate)
func DropoutReference(b Builder, x Value, rate float64) Value {
	keep := b.Greater(b.RandomUniform(x.Shape()), b.Scalar(rate))
	return b.Mul(b.Mul(x, keep), b.Scalar(1/(1-rate)))
}

func (c *checked) Dropout(x Value, rate float64) Value {
	if !c.ok(x) {
		return failed{shape: shapeOf(x), dtype: c.ops.DType()}
	}
	if !(rate >= 0 && rate < 1) || math.IsNaN(rate) {
		return c.fail(x.Shape(), "Dropout needs a rate in [0, 1); got %v", rate)
	}
	fused, ok := c.ops.(DropoutOps)
	if !ok {
		return DropoutReference(c, x, rate)
	}
	return c.call("Dropout", x.Shape(), func() (Value, error) { return fused.Dropout(x, rate) })
}
