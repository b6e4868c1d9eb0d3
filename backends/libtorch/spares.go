//go:build libtorch

package libtorch

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/sugarme/gotch/ts"
)

// Spare buffers: PyTorch's optimizers update a parameter in place; a
// kerasgo training step returns new parameters (the old ones stay valid
// for the runs that still read them), so each step would allocate a fresh
// copy of every weight and optimizer slot, and for a large model the
// kernel's page faults on that fresh memory cost more than the update
// itself (FCN-5's 118M weights). Instead, an update op's result is leased
// to its program's output slot (recycle.Slot), Release gives the buffer
// back, and the next run's update ops write into it (libtorch's out=
// forms). A buffer is only reused when nothing else can see it: it was
// written by an update op in this engine (fresh memory), it is the only
// output over its memory, and a later run that returns a view of it
// revokes its lease.

// spare returns a free buffer of shape s, in the Run's dtype, released
// from one of this program's outputs, or nil if there is none (the op
// then allocates). The buffer's handle is the arena's: the op's out=
// result keeps its memory.
func (o *eagerOps) spare(s backend.Shape) *ts.Tensor {
	// libtorch refuses out= while autograd records: only after the last
	// Grad, or in a Func that has none.
	if o.p == nil || (!o.gradDone && len(o.leaves) > 0) {
		return nil
	}
	for i := range o.p.slots {
		slot := &o.p.slots[i]
		if t := slot.Peek(); t != nil && t.dtype == o.dtype && t.shape.Equal(s) {
			slot.Take()
			o.arena = append(o.arena, t.t)
			return t.t
		}
	}
	return nil
}

// target returns the buffer an update op writes its new value of old
// into: old's own memory when the caller donated it (donation.go), else a
// spare buffer, else nil (the op allocates).
func (o *eagerOps) target(old backend.Value) *ts.Tensor {
	if t := o.donatedInto(old); t != nil {
		return t
	}
	return o.spare(old.Shape())
}

// update runs an update op that computes a new value of old: into old's
// memory or a spare buffer (target), else fresh (allocating). Its result
// is in memory of its own, which may be leased to the output it becomes.
func (o *eagerOps) update(old backend.Value, into func(out *ts.Tensor) (*ts.Tensor, error), fresh func() (*ts.Tensor, error)) (backend.Value, error) {
	s := old.Shape()
	if o.rehearsal { // the caller has read its operands
		return o.stands(s)
	}
	var t *ts.Tensor
	var err error
	if out := o.target(old); out != nil {
		t, err = into(out)
	} else {
		t, err = fresh()
	}
	v, err := o.keep(t, err, s)
	if err != nil {
		return nil, err
	}
	v.(*value).updated = true
	return v, nil
}

// extent is the byte range a tensor's elements occupy in its storage.
type extent struct{ lo, hi uintptr }

func (a extent) overlaps(b extent) bool { return a.lo < b.hi && b.lo < a.hi }

// extentOf returns where t's elements lie (libtorch's strides are never
// negative: the last element is at the sum of (size-1)·stride).
func extentOf(t *ts.Tensor, s backend.Shape) (extent, error) {
	if s.Size() == 0 {
		return extent{}, nil
	}
	ptr, err := t.DataPtr()
	if err != nil {
		return extent{}, err
	}
	strides, err := t.Stride()
	if err != nil {
		return extent{}, err
	}
	last := int64(0)
	for i, d := range s {
		last += int64(d-1) * strides[i]
	}
	lo := uintptr(ptr)
	return extent{lo: lo, hi: lo + uintptr(last+1)*uintptr(t.DType().Size())}, nil
}

// leaseOutputs gives each output that an update op wrote, and that no
// other output views, a lease on its slot; and revokes the lease of any
// input a returned output views (its memory lives on in that output). If
// libtorch cannot say where an output lies, every input's lease is revoked
// and no output gets one.
func (p *program) leaseOutputs(out []backend.Tensor, results []backend.Value, inputs []backend.Tensor) {
	ext := make([]extent, len(out))
	for i, t := range out {
		var err error
		if ext[i], err = extentOf(t.(*tensor).t, t.Shape()); err != nil {
			for _, in := range inputs {
				in.(*tensor).lease.Revoke()
				in.(*tensor).fresh = false
			}
			return
		}
	}
	for _, in := range inputs {
		lt := in.(*tensor)
		if lt.lease == nil && !lt.fresh {
			continue
		}
		for i := range out {
			if lt.ext.overlaps(ext[i]) {
				lt.lease.Revoke()
				lt.fresh = false
				break
			}
		}
	}
	for i, r := range results {
		if !r.(*value).updated || ext[i].lo == ext[i].hi {
			continue
		}
		shared := false
		for j := range out {
			if j != i && ext[i].overlaps(ext[j]) {
				shared = true
				break
			}
		}
		if !shared && len(p.slots) == len(out) {
			lt := out[i].(*tensor)
			lt.lease, lt.ext = p.slots[i].Lease(), ext[i]
		}
	}
}

// drainSlots frees the program's free buffers and closes its slots
// (Close): outputs released afterwards are freed, not kept.
func (p *program) drainSlots() {
	for i := range p.slots {
		if t := p.slots[i].Close(); t != nil {
			t.t.Drop()
		}
	}
}
