package backend

// TakeOps is an optional capability of an [Ops]: picking one value along
// the last axis per row as one op, forward and backward. The reference
// multiplies by a one-hot tensor as large as x and sums it, and its
// gradient makes several more, which for a language model's
// predictions over 10,000 words is most of a step. An engine implements
// it only if it matches [TakeAlongLastAxisReference] within the
// conformance tolerance; the checked Builder uses it when present and
// the reference otherwise.
type TakeOps interface {
	// TakeAlongLastAxis gets x (..., n) and indices of x's shape without
	// its last axis, in the Func's float dtype.
	TakeAlongLastAxis(x, indices Value) (Value, error)
}

// TakeAlongLastAxisReference is TakeAlongLastAxis written with Builder
// ops: the sum over the last axis of x times the indices' one-hot
// vectors. An index outside [0, n) takes 0 here, while the engines'
// fused ops fail the Run.
func TakeAlongLastAxisReference(b Builder, x, indices Value) Value {
	s := x.Shape()
	return b.Sum(b.Mul(b.OneHot(indices, s[len(s)-1]), x), len(s)-1)
}

func (c *checked) TakeAlongLastAxis(x, indices Value) Value {
	if !c.ok(x, indices) {
		return failed{shape: shapeOf(indices), dtype: c.ops.DType()}
	}
	xs, is := x.Shape(), indices.Shape()
	if len(xs) == 0 || !is.Equal(xs[:len(xs)-1]) {
		return c.fail(is, "TakeAlongLastAxis needs one index per row of x's last axis, indices of shape x.Shape[:last]; got x %v and indices %v", xs, is)
	}
	fused, ok := c.ops.(TakeOps)
	if !ok {
		return TakeAlongLastAxisReference(c, x, indices)
	}
	return c.call("TakeAlongLastAxis", is, func() (Value, error) { return fused.TakeAlongLastAxis(x, indices) })
}
