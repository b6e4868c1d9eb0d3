//go:build libtorch

package libtorch

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/sugarme/gotch/ts"
)

// AdamUpdate implements backend.AdamOps: Keras's Adam rule for one
// parameter in seven libtorch kernels (lerp, square, lerp, sqrt, add, div and
// addcmul; the add and div write into the sqrt's buffer) instead of the
// twelve of the reference composition.
func (o *eagerOps) AdamUpdate(p, g, m, v, alpha backend.Value, beta1, beta2, eps float64) (newP, newM, newV backend.Value, err error) {
	pt, gt, mt, vt, at := o.tv(p), o.tv(g), o.tv(m), o.tv(v), o.tv(alpha)
	s := p.Shape()
	// m' = m + (g-m)(1-beta1), exactly torch.lerp(m, g, 1-beta1).
	m2, err := mt.Lerp(gt, o.scalar(1-beta1), false)
	if newM, err = o.keep(m2, err, s); err != nil {
		return nil, nil, nil, err
	}
	g2, err := gt.Square(false)
	if _, err = o.keep(g2, err, s); err != nil {
		return nil, nil, nil, err
	}
	v2, err := vt.Lerp(g2, o.scalar(1-beta2), false)
	if newV, err = o.keep(v2, err, s); err != nil {
		return nil, nil, nil, err
	}
	// step = m' / (sqrt(v') + eps), computed in one buffer.
	den, err := v2.Sqrt(false)
	if _, err = o.keep(den, err, s); err != nil {
		return nil, nil, nil, err
	}
	// Not den.AddScalar_: gotch's in-place wrappers replace the tensor's
	// handle without freeing the old one, which leaks the whole buffer.
	sum, err := den.AddScalarOut(den, o.scalar(eps), false)
	if _, err = o.keep(sum, err, s); err != nil {
		return nil, nil, nil, err
	}
	step, err := m2.DivOut(den, den, false)
	if _, err = o.keep(step, err, s); err != nil {
		return nil, nil, nil, err
	}
	// p' = p + step·(-alpha).
	neg, err := at.Neg(false)
	if _, err = o.keep(neg, err, backend.Shape{}); err != nil {
		return nil, nil, nil, err
	}
	p2, err := pt.Addcmul(step, neg, false)
	newP, err = o.keep(p2, err, s)
	return newP, newM, newV, err
}

var _ backend.AdamOps = (*eagerOps)(nil)

// SGDUpdate implements backend.SGDOps in one libtorch kernel, addcmul: p
// + g·(-lr), one new buffer instead of the product's and the difference's.
func (o *eagerOps) SGDUpdate(p, g, lr backend.Value) (backend.Value, error) {
	var neg *ts.Tensor
	if c, ok := constant(lr); ok {
		v, err := o.fromHost([]float64{-c}, backend.Shape{})
		if err != nil {
			return nil, err
		}
		neg = o.tv(v)
	} else {
		t, err := o.tv(lr).Neg(false)
		if _, err = o.keep(t, err, backend.Shape{}); err != nil {
			return nil, err
		}
		neg = t
	}
	p2, err := o.tv(p).Addcmul(o.tv(g), neg, false)
	return o.keep(p2, err, p.Shape())
}

var _ backend.SGDOps = (*eagerOps)(nil)
