package backend

// AdamOps is an optional capability of an [Ops]: a fused Adam update. An
// engine implements it only if it matches [AdamReference] within the
// conformance tolerance; the checked Builder uses it when present and the
// reference composition of ordinary ops otherwise, so optimizers are written
// once.
type AdamOps interface {
	// AdamUpdate gets p, g, m and v of one shape and a scalar alpha.
	AdamUpdate(p, g, m, v, alpha Value, beta1, beta2, eps float64) (newP, newM, newV Value, err error)
}

// AdamReference is Adam's update for one parameter written with Builder
// ops (Keras 3's rule): m' = m + (g-m)(1-beta1); v' = v + (g²-v)(1-beta2);
// p' = p - alpha·m'/(sqrt(v')+eps).
func AdamReference(b Builder, p, g, m, v, alpha Value, beta1, beta2, eps float64) (newP, newM, newV Value) {
	newM = b.Add(m, b.Mul(b.Sub(g, m), b.Scalar(1-beta1)))
	newV = b.Add(v, b.Mul(b.Sub(b.Square(g), v), b.Scalar(1-beta2)))
	newP = b.Sub(p, b.Div(b.Mul(newM, alpha), b.Add(b.Sqrt(newV), b.Scalar(eps))))
	return newP, newM, newV
}

func (c *checked) AdamUpdate(p, g, m, v, alpha Value, beta1, beta2, eps float64) (Value, Value, Value) {
	fail := func() (Value, Value, Value) {
		f := failed{shape: shapeOf(p), dtype: c.ops.DType()}
		return f, f, f
	}
	if !c.ok(p, g, m, v, alpha) {
		return fail()
	}
	s := p.Shape()
	if !g.Shape().Equal(s) || !m.Shape().Equal(s) || !v.Shape().Equal(s) {
		c.fail(s, "AdamUpdate needs parameter, gradient and moments of one shape; got %v, %v, %v, %v", s, g.Shape(), m.Shape(), v.Shape())
		return fail()
	}
	if len(alpha.Shape()) != 0 {
		c.fail(s, "AdamUpdate needs a scalar alpha; got shape %v", alpha.Shape())
		return fail()
	}
	fused, ok := c.ops.(AdamOps)
	if !ok {
		return AdamReference(c, p, g, m, v, alpha, beta1, beta2, eps)
	}
	var newM, newV Value
	newP := c.call("AdamUpdate", s, func() (Value, error) {
		np, nm, nv, err := fused.AdamUpdate(p, g, m, v, alpha, beta1, beta2, eps)
		newM, newV = nm, nv
		return np, err
	})
	if c.err != nil {
		return fail()
	}
	return newP, newM, newV
}
