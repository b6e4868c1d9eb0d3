//go:build libtorch

package libtorch

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	lib "github.com/sugarme/gotch/libtch"
	"github.com/sugarme/gotch/ts"
)

// AdamUpdate implements backend.AdamOps: Keras's Adam rule for one
// parameter in seven libtorch kernels (lerp, square, lerp, sqrt, add, div and
// addcmul; the sqrt, add and div write into the square's buffer) instead
// of the twelve of the reference composition, run in one cgo call
// (kg_adam_update, which internal/libtorchbuild adds to gotch's libtch)
// where gotch's wrappers took ten, each with a Go tensor to track: Adam
// on the LSTM(64) benchmark's five variables went from 370-510 to 250-285
// µs a step (bench/opcost). The new parameter and moments are written
// into the old ones' memory when the caller donated it (donation.go), or
// into released buffers when the program has them (spares.go).
func (o *eagerOps) AdamUpdate(p, g, m, v, alpha backend.Value, beta1, beta2, eps float64) (newP, newM, newV backend.Value, err error) {
	defer o.pauseGrad()()
	s := p.Shape()
	if o.rehearsal { // the op's reads, and results that take no memory
		for _, in := range []backend.Value{p, g, m, v, alpha} {
			o.tv(in)
		}
		var r [3]backend.Value
		for i := range r {
			if r[i], err = o.stands(s); err != nil {
				return nil, nil, nil, err
			}
		}
		return r[0], r[1], r[2], nil
	}
	// A spare for each result, or nil (allocate): they are distinct
	// buffers, each in the arena until the result's handle replaces it.
	var outs [3]lib.Ctensor
	for i, old := range [3]backend.Value{p, m, v} {
		if t := o.target(old); t != nil {
			outs[i] = ctensor(t)
		}
	}
	cp, cm, cv, err := lib.KgAdamUpdate(ctensor(o.tv(p)), ctensor(o.tv(g)), ctensor(o.tv(m)), ctensor(o.tv(v)), ctensor(o.tv(alpha)),
		outs[0], outs[1], outs[2], beta1, beta2, eps)
	if err != nil {
		return nil, nil, nil, err
	}
	results := [3]backend.Value{}
	for i, c := range [3]lib.Ctensor{cp, cm, cv} {
		results[i], _ = o.keep(ts.New(c), nil, s)
		results[i].(*value).updated = true
	}
	return results[0], results[1], results[2], nil
}

var _ backend.AdamOps = (*eagerOps)(nil)

// SGDUpdate implements backend.SGDOps in one libtorch kernel, addcmul: p
// + g·(-lr), into a released buffer when the program has one (spares.go),
// else one new buffer instead of the product's and the difference's.
func (o *eagerOps) SGDUpdate(p, g, lr backend.Value) (backend.Value, error) {
	defer o.pauseGrad()()
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
	return o.update(p,
		func(out *ts.Tensor) (*ts.Tensor, error) { return pt.AddcmulOut(out, gt, neg, false) },
		func() (*ts.Tensor, error) { return pt.Addcmul(gt, neg, false) })
}

var _ backend.SGDOps = (*eagerOps)(nil)

// pauseGrad turns libtorch's gradient recording off until the function
// it returns turns it on again: an optimizer's update is never
// differentiated (PyTorch's optimizers step under torch.no_grad), and its
// kernels write into buffers (out=), which autograd refuses while an
// argument tracks gradients, as the optimizer state does in a step that
// differentiates with respect to computed values (Compile's GradOther).
// A Run records until its last Grad (eagerOps.Grad), so there is nothing
// to pause after it. (gotch's GradSetEnabled does not return the mode it
// replaced, so the mode is known from the Run, not asked.)
func (o *eagerOps) pauseGrad() func() {
	if o.gradDone {
		return func() {}
	}
	if _, err := ts.GradSetEnabled(false); err != nil {
		return func() {}
	}
	return func() { ts.GradSetEnabled(true) }
}
