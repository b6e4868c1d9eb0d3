//go:build libtorch

package libtorch

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	lib "github.com/sugarme/gotch/libtch"
	"github.com/sugarme/gotch/ts"
)

// customGradient is one CustomGradient result of a Run: the fresh leaf
// that stands for forward's value, the inputs whose gradients vjp gives,
// and vjp itself.
type customGradient struct {
	leaf   *ts.Tensor
	shape  backend.Shape
	inputs []backend.Value
	vjp    func(backend.Value) ([]backend.Value, error)
}

// CustomGradient returns forward's value as a new autograd leaf, with no
// history through forward. libtorch's C API has no custom autograd
// function, so Grad does the rest (gradThroughCustoms): it
// back-propagates to the leaf, calls vjp with the leaf's gradient, and
// back-propagates vjp's gradients from the inputs on.
func (o *eagerOps) CustomGradient(inputs []backend.Value, forward backend.Value, vjp func(backend.Value) ([]backend.Value, error)) (backend.Value, error) {
	if o.rehearsal {
		// Its Runs keep every value (lifetimes.go): a rehearsal records
		// nothing for them.
		o.p.life.off = true
	}
	d, err := o.tv(forward).Detach(false)
	if err != nil {
		return nil, err
	}
	o.arena = append(o.arena, d)
	if o.gradDone || !o.anyTracks(inputs) {
		return &value{t: d, shape: forward.Shape().Clone(), dtype: o.dtype}, nil
	}
	leaf, err := d.SetRequiresGrad(true, false)
	if err != nil {
		return nil, err
	}
	o.arena = append(o.arena, leaf)
	o.customs = append(o.customs, customGradient{leaf: leaf, shape: forward.Shape().Clone(), inputs: inputs, vjp: vjp})
	return &value{t: leaf, shape: forward.Shape().Clone(), dtype: o.dtype}, nil
}

func (o *eagerOps) anyTracks(vs []backend.Value) bool {
	for _, v := range vs {
		if o.tracks(v) {
			return true
		}
	}
	return false
}

func (o *eagerOps) tracks(v backend.Value) bool {
	t, err := o.tensor(v)
	if err != nil {
		return false
	}
	tracks, err := t.RequiresGrad()
	return err == nil && tracks
}

// gradThroughCustoms is Grad for a Run with CustomGradient results. The
// gradients of wrt and of every custom result's leaf are accumulated
// over stages of libtorch's autograd engine (torch.autograd.grad, with
// the graph kept for the next stage): one from loss, then one per custom
// result, latest first, from the scalar Σᵢ Σ inputᵢ·vjpᵢ (vjp's
// gradients taken as constants), whose gradient is exactly vjp's
// gradients carried back through the inputs' history. Latest first is a
// reverse topological order: a custom result can only depend on earlier
// ones. Nothing is accumulated into a leaf's .grad.
func (o *eagerOps) gradThroughCustoms(loss backend.Value, wrt []backend.Value) ([]backend.Value, error) {
	var targets []lib.Ctensor
	at := make([]int, len(wrt)) // wrt[i]'s index in targets, or -1
	for i, w := range wrt {
		at[i] = -1
		if o.tracks(w) {
			at[i] = len(targets)
			targets = append(targets, ctensor(o.tv(w)))
		}
	}
	first := len(targets)
	for _, c := range o.customs {
		targets = append(targets, ctensor(c.leaf))
	}
	acc := make([]*ts.Tensor, len(targets))
	stage := func(root *ts.Tensor) error {
		roots := []lib.Ctensor{ctensor(root)}
		grads := make([]lib.Ctensor, len(targets)) // C pointers the engine fills
		lib.AtRunBackward(&roots[0], 1, &targets[0], len(targets), &grads[0], 1, 0)
		if err := ts.TorchErr(); err != nil {
			return err
		}
		for k := range grads {
			g := ts.New(grads[k])
			o.arena = append(o.arena, g)
			if defined, err := g.Defined(); err != nil {
				return err
			} else if !defined {
				continue
			}
			if acc[k] == nil {
				acc[k] = g
				continue
			}
			// out of place: a gradient may be a broadcast view
			sum, err := acc[k].Add(g, false)
			if err != nil {
				return err
			}
			o.arena = append(o.arena, sum)
			acc[k] = sum
		}
		return nil
	}
	if err := stage(o.tv(loss)); err != nil {
		return nil, err
	}
	for j := len(o.customs) - 1; j >= 0; j-- {
		c := o.customs[j]
		up := acc[first+j]
		if up == nil { // the loss does not reach this result
			continue
		}
		gs, err := c.vjp(&value{t: up, shape: c.shape, dtype: o.dtype})
		if err != nil {
			return nil, err
		}
		var root *ts.Tensor
		for i, in := range c.inputs {
			if !o.tracks(in) {
				continue
			}
			g, err := o.tv(gs[i]).Detach(false)
			if err != nil {
				return nil, err
			}
			o.arena = append(o.arena, g)
			term, err := o.tv(in).Mul(g, false)
			if err == nil {
				o.arena = append(o.arena, term)
				term, err = term.Sum(kind(o.dtype), false)
			}
			if err != nil {
				return nil, err
			}
			o.arena = append(o.arena, term)
			if root != nil {
				if term, err = root.Add(term, false); err != nil {
					return nil, err
				}
				o.arena = append(o.arena, term)
			}
			root = term
		}
		if root != nil {
			if err := stage(root); err != nil {
				return nil, err
			}
		}
	}
	out := make([]backend.Value, len(wrt))
	for i, w := range wrt {
		g := (*ts.Tensor)(nil)
		if at[i] >= 0 {
			g = acc[at[i]]
		}
		if g == nil { // w does not influence loss: its gradient is zero
			z, err := ts.Zeros(dims(w.Shape()), kind(o.dtype), o.e.device)
			if err != nil {
				return nil, err
			}
			o.arena = append(o.arena, z)
			g = z
		}
		out[i] = &value{t: g, shape: w.Shape().Clone(), dtype: o.dtype}
	}
	return out, nil
}
