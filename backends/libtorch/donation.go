//go:build libtorch

package libtorch

import (
	"math"
	"slices"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"
)

// Donation (backend.Donor): a training step that returns new parameters
// and optimizer slots while the old ones stay alive keeps two copies of
// them at its end (the spare buffers of spares.go reuse the second copy's
// memory but do not free it), where PyTorch updates in place and keeps
// one. A Run the caller donates inputs to writes an update op's result
// (SGDUpdate, AdamUpdate) into the memory of the input it updates, when
// all of these hold:
//   - the program's first Run (rehearse) recorded that this op is the
//     last to read the input, and no value made before the op, read after
//     it or returned, lies in the input's memory (a view of it would see
//     the new values: checked in each Run, on its own tensors); so never
//     in a Func whose lifetimes are off (lifetimes.go);
//   - the Func's one Grad has run and the loss it differentiated is
//     finite (read on the host: one scalar), so a step whose loss is NaN
//     leaves its inputs as they were;
//   - the input's memory is its own: an update op's earlier result whose
//     lease is active, or an upload (fresh), that no Run's output views.
//
// The result is then the input's memory: leaseOutputs revokes the input's
// lease (its buffer lives on in the result), and releasing the input
// drops its handle only.

// donation is what a program's first Run (rehearse) recorded about its
// inputs and values.
type donation struct {
	// lastRead[i] is the op that last read input i, or -1 when none did or
	// the Run returned it.
	lastRead []int
	// readUntil[n] is the last op that reads value n, math.MaxInt when the
	// Run returns it, -1 when nothing reads it.
	readUntil []int
}

// RunDonating implements backend.Donor.
func (p *program) RunDonating(inputs []backend.Tensor, donated []bool) ([]backend.Tensor, error) {
	return p.run(inputs, donated)
}

var _ backend.Donor = (*program)(nil)

// checkLoss ends a Run's donation when the loss its last Grad
// differentiated is not finite (or cannot be read).
func (o *eagerOps) checkLoss(loss backend.Value) {
	if o.donated == nil || !o.p.life.ready || o.p.life.off {
		return
	}
	d, err := o.tv(loss).Totype(gotch.Double, false)
	if err != nil {
		o.donated = nil
		return
	}
	o.arena = append(o.arena, d)
	host := make([]float64, 1)
	if err := d.CopyData(host, 1); err != nil || math.IsNaN(host[0]) || math.IsInf(host[0], 0) {
		o.donated = nil
	}
}

// donatedInto returns the memory to write the current op's update of p
// into when p is a donated input the rules above let it overwrite, or nil.
func (o *eagerOps) donatedInto(p backend.Value) *ts.Tensor {
	v, ok := p.(*value)
	if !ok || v.input == 0 || o.donated == nil || !o.gradDone {
		return nil
	}
	i := v.input - 1
	l := &o.p.life
	if !o.donated[i] || !l.ready || l.off || l.donation.lastRead[i] != o.life.op {
		return nil
	}
	in := o.inputs[i]
	if in.dtype != o.dtype || !(in.lease.Active() || in.fresh) || o.viewedLater(in.ext) {
		return nil
	}
	o.wrote = true
	return in.t
}

// viewedLater reports whether a value made before the current op, and
// read after it or returned, lies in memory overlapping ext (a view of
// the input there, which would see the update), or cannot be located.
// Each value's extent is found once per Run.
func (o *eagerOps) viewedLater(ext extent) bool {
	until := o.p.life.donation.readUntil
	if o.extents == nil {
		o.extents = map[int]extent{}
	}
	for n, v := range o.life.made {
		if n >= len(until) || o.life.madeAt[n] >= o.life.op || until[n] <= o.life.op || v.dropped || v.t == nil {
			continue
		}
		e, ok := o.extents[n]
		if !ok {
			var err error
			if e, err = extentOf(v.t, v.shape); err != nil {
				return true
			}
			o.extents[n] = e
		}
		if e.overlaps(ext) {
			return true
		}
	}
	return false
}

// recordDonation returns, at the end of the first Run, where each input
// and each value was last read (donation); lastRead[n] is the op that
// last read value n (-1: none).
func (o *eagerOps) recordDonation(results []backend.Value, lastRead []int) donation {
	d := donation{lastRead: make([]int, len(o.inputs)), readUntil: slices.Clone(lastRead)}
	for i := range d.lastRead {
		d.lastRead[i] = -1
	}
	for _, r := range o.inputReads {
		d.lastRead[r[0]] = max(d.lastRead[r[0]], r[1])
	}
	for _, r := range results {
		if v, ok := r.(*value); ok {
			if v.input > 0 {
				d.lastRead[v.input-1] = -1
			}
			if v.num > 0 {
				d.readUntil[v.num-1] = math.MaxInt
			}
		}
	}
	return d
}

// rehearse records the program's lifetimes and donations (which the first
// Run would) with a Run on inputs that take no memory: each a single zero
// broadcast to its shape, as is each op's result once the op is done
// (keep), and each gradient (no backward pass runs); the update ops
// compute nothing (stands). A training step's first real Run then frees
// values as it goes and writes its updates into its inputs, so it holds
// one copy of the weights, not two: without it, the first step's peak is
// the run's peak (the uploaded weights, the gradients and the new weights
// at once). It costs about one forward pass, once per compiled step, and
// holds one op's tensors at a time. A
// rehearsal that fails (an op that cannot take a broadcast input) records
// nothing, and the first Run records as before.
func (p *program) rehearse() {
	var inputs []backend.Tensor
	defer func() {
		for _, in := range inputs {
			in.(*tensor).t.Drop()
		}
	}()
	err := p.e.w.do(func() error {
		for _, s := range p.specs {
			t, err := broadcastZero(s.Shape, s.DType, p.e.device)
			if err != nil {
				return err
			}
			inputs = append(inputs, &tensor{t: t, shape: s.Shape.Clone(), dtype: s.DType})
		}
		return nil
	})
	if err != nil {
		return
	}
	runs := p.runs
	p.rehearsing = true
	out, err := p.run(inputs, nil)
	p.rehearsing, p.runs = false, runs
	for _, o := range out {
		o.(*tensor).t.Drop()
	}
	if err != nil {
		p.life = lifetimes{} // the first Run records
	}
}

// stands returns, in rehearse's Run, a value of shape s that takes no
// memory (a broadcast zero), standing for an update op's result or a
// gradient: the rehearsal needs the ops' reads, not their values.
func (o *eagerOps) stands(s backend.Shape) (backend.Value, error) {
	t, err := broadcastZero(s, o.dtype, o.e.device)
	if err != nil {
		return nil, err
	}
	v, err := o.keepAsIs(t, s)
	if err != nil {
		return nil, err
	}
	v.(*value).updated = true
	return v, nil
}

// broadcastZero returns a zero of dtype dt broadcast to shape s: one
// element of memory (a scalar is one).
func broadcastZero(s backend.Shape, dt backend.DType, device gotch.Device) (*ts.Tensor, error) {
	one, err := ts.Zeros([]int64{1}, kind(dt), device)
	if err != nil {
		return nil, err
	}
	if len(s) == 0 { // gotch takes no empty size list
		return one.Squeeze(true)
	}
	return one.Expand(dims(s), false, true)
}

// dropPending frees a rehearsal's results of the op before (keep).
func (o *eagerOps) dropPending() {
	for _, t := range o.pending {
		t.Drop()
	}
	o.pending = o.pending[:0]
}
