package backend

// LayerNormOps is an optional capability of an [Ops]: layer
// normalisation over the last axis as a few fused ops. An engine
// implements it only if it matches [LayerNormReference] within the
// conformance tolerance; the checked Builder uses it when present and
// the reference otherwise.
type LayerNormOps interface {
	// LayerNormalize gets x (..., features) and gamma and beta
	// (features, or nil).
	LayerNormalize(x, gamma, beta Value, eps float64) (Value, error)
}

// LayerNormReference is layer normalisation over the last axis written
// with Builder ops, as Keras's LayerNormalization computes it:
//
//	centred = x - mean(x);  variance = mean(centred²)
//	y = centred / sqrt(variance + eps) · gamma + beta
//
// the means over each row of the last axis; gamma and beta may be nil.
func LayerNormReference(b Builder, x, gamma, beta Value, eps float64) Value {
	keep := x.Shape().Clone()
	keep[len(keep)-1] = 1
	last := len(keep) - 1
	centred := b.Sub(x, b.Reshape(b.Mean(x, last), keep))
	variance := b.Reshape(b.Mean(b.Square(centred), last), keep)
	y := b.Div(centred, b.Sqrt(b.Add(variance, b.Scalar(eps))))
	if gamma != nil {
		y = b.Mul(y, gamma)
	}
	if beta != nil {
		y = b.Add(y, beta)
	}
	return y
}

func (c *checked) LayerNormalize(x, gamma, beta Value, eps float64) Value {
	if !c.normalizeArgs("LayerNormalize", 1, x, gamma, beta, eps) {
		return failed{shape: shapeOf(x), dtype: c.ops.DType()}
	}
	return c.inFloat32(func() []Value {
		fused, ok := c.ops.(LayerNormOps)
		if !ok {
			return []Value{LayerNormReference(c, x, gamma, beta, eps)}
		}
		return []Value{c.call("LayerNormalize", x.Shape(), func() (Value, error) { return fused.LayerNormalize(x, gamma, beta, eps) })}
	})[0]
}

// normalizeArgs checks a normalisation's arguments: x of rank at least
// minRank+1 with its features on the last axis, gamma and beta
// (features) or nil, a positive epsilon. It records the first problem
// and reports whether there was none.
func (c *checked) normalizeArgs(name string, minRank int, x, gamma, beta Value, eps float64) bool {
	vs := []Value{x}
	for _, v := range []Value{gamma, beta} {
		if v != nil {
			vs = append(vs, v)
		}
	}
	if !c.ok(vs...) {
		return false
	}
	xs := x.Shape()
	if len(xs) < minRank+1 {
		c.fail(xs, "%s needs x with its features on the last axis, of rank at least %d; got %v", name, minRank+1, xs)
		return false
	}
	features := Shape{xs[len(xs)-1]}
	for _, v := range []Value{gamma, beta} {
		if v != nil && !v.Shape().Equal(features) {
			c.fail(xs, "%s needs gamma and beta of shape (features) = %v; got %v", name, features, v.Shape())
			return false
		}
	}
	if !(eps > 0) {
		c.fail(xs, "%s needs a positive epsilon; got %v", name, eps)
		return false
	}
	return true
}
