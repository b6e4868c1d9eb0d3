//go:build libtorch

package libtorch

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/sugarme/gotch/ts"
)

// AdamUpdate implements backend.AdamOps: Keras's Adam rule for one
// parameter in seven libtorch kernels (lerp, square, lerp, sqrt, add, div and
// addcmul; the sqrt, add and div write into the square's buffer) instead
// of the twelve of the reference composition. The new parameter and
// moments are written into released buffers when the program has them
// (spares.go).
func (o *eagerOps) AdamUpdate(p, g, m, v, alpha backend.Value, beta1, beta2, eps float64) (newP, newM, newV backend.Value, err error) {
	pt, gt, mt, vt, at := o.tv(p), o.tv(g), o.tv(m), o.tv(v), o.tv(alpha)
	s := p.Shape()
	// m' = m + (g-m)(1-beta1), exactly torch.lerp(m, g, 1-beta1).
	w1 := o.scalar(1 - beta1)
	newM, err = o.update(s,
		func(out *ts.Tensor) (*ts.Tensor, error) { return mt.LerpScalarOut(out, gt, w1, false) },
		func() (*ts.Tensor, error) { return mt.Lerp(gt, w1, false) })
	if err != nil {
		return nil, nil, nil, err
	}
	m2 := o.tv(newM)
	g2, err := gt.Square(false)
	if _, err = o.keep(g2, err, s); err != nil {
		return nil, nil, nil, err
	}
	w2 := o.scalar(1 - beta2)
	newV, err = o.update(s,
		func(out *ts.Tensor) (*ts.Tensor, error) { return vt.LerpScalarOut(out, g2, w2, false) },
		func() (*ts.Tensor, error) { return vt.Lerp(g2, w2, false) })
	if err != nil {
		return nil, nil, nil, err
	}
	// step = m' / (sqrt(v') + eps), computed in the square's buffer, which
	// v' no longer needs.
	den, err := o.tv(newV).SqrtOut(g2, false)
	if _, err = o.keep(den, err, s); err != nil {
		return nil, nil, nil, err
	}
	// In place through out= (den is the output): the same kernel as
	// den.AddScalar_, and the same form as the sqrt and div around it.
	// (gotch's in-place wrappers leaked the tensor's old handle as released;
	// libtorchbuild.PatchTensorWrappers frees it, so either form is safe.)
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
	newP, err = o.update(s,
		func(out *ts.Tensor) (*ts.Tensor, error) { return pt.AddcmulOut(out, step, neg, false) },
		func() (*ts.Tensor, error) { return pt.Addcmul(step, neg, false) })
	return newP, newM, newV, err
}

var _ backend.AdamOps = (*eagerOps)(nil)

// SGDUpdate implements backend.SGDOps in one libtorch kernel, addcmul: p
// + g·(-lr), into a released buffer when the program has one (spares.go),
// else one new buffer instead of the product's and the difference's.
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
	pt, gt := o.tv(p), o.tv(g)
	return o.update(p.Shape(),
		func(out *ts.Tensor) (*ts.Tensor, error) { return pt.AddcmulOut(out, gt, neg, false) },
		func() (*ts.Tensor, error) { return pt.Addcmul(gt, neg, false) })
}

var _ backend.SGDOps = (*eagerOps)(nil)
