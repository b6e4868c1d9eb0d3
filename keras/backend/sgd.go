package backend

// SGDOps is an optional capability of an [Ops]: plain SGD's update of one
// parameter (no momentum) as one op, p' = p - lr·g, instead of a product
// and a difference, each of which reads and writes the whole parameter.
// An engine implements it only if it matches [SGDReference] within the
// conformance tolerance; the checked Builder uses it when present and the
// reference otherwise.
type SGDOps interface {
	// SGDUpdate gets p and g of one shape and a scalar lr.
	SGDUpdate(p, g, lr Value) (newP Value, err error)
}

// SGDReference is plain SGD's update for one parameter written with
// Builder ops (Keras 3's rule without momentum): p' = p - lr·g, the
// product rounded before the difference.
func SGDReference(b Builder, p, g, lr Value) Value {
	return b.Sub(p, b.Mul(g, lr))
}

func (c *checked) SGDUpdate(p, g, lr Value) Value {
	if !c.ok(p, g, lr) {
		return failed{shape: shapeOf(p), dtype: c.ops.DType()}
	}
	s := p.Shape()
	if !g.Shape().Equal(s) {
		return c.fail(s, "SGDUpdate needs a parameter and a gradient of one shape; got %v and %v", s, g.Shape())
	}
	if len(lr.Shape()) != 0 {
		return c.fail(s, "SGDUpdate needs a scalar learning rate; got shape %v", lr.Shape())
	}
	fused, ok := c.ops.(SGDOps)
	if !ok {
		return SGDReference(c, p, g, lr)
	}
	return c.call("SGDUpdate", s, func() (Value, error) { return fused.SGDUpdate(p, g, lr) })
}
