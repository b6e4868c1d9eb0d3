//go:build libtorch

package libtorch

import (
	"errors"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Lifetimes: a Run keeps every tensor its ops make in its arena until it
// ends, so a training step held every activation of the forward pass,
// and every gradient, until its last update op had run, where PyTorch
// frees each tensor once nothing holds it (autograd frees what it saved
// as the backward pass goes). A Func does the same ops in the same order
// on every call, so a program's first successful Run records, for each
// value an op made (in the order they were made), the last op that read
// it; later Runs drop a value's tensor as soon as that op is done (at the
// next op's start, backend.OpStarter), and libtorch frees its memory once
// autograd no longer holds it. A Run's outputs are never dropped. A read of
// a dropped value (a Func that did not do the same as in its first Run)
// is the op's error, never a read of freed memory, and no later Run of
// the program drops anything. Funcs this does not apply to, keeping the
// whole arena: those that autocast (a value's tensor may be shared with
// its rounded copy), that take custom gradients, or that differentiate
// with respect to a computed value (their gradients read values outside
// the op that reads them).
type lifetimes struct {
	// dropAfter[k] lists the values whose last read was op k (BeginOp's
	// count), none of them a result.
	dropAfter [][]int
	freed     int  // values dropped by the program's Runs, all together
	ready     bool // recorded: later Runs drop
	off       bool // never drop (not applicable, or a Run diverged)
	// donation is where the inputs were last read (donation.go).
	donation donation
}

var errDroppedValue = errors.New("a value was read after the op that last read it in this program's first Run: a Func must do the same ops in the same order on every call")

// tracked is the Run-side state: the values made so far, in order, and
// where each one's tensor is in the arena.
type tracked struct {
	op      int // ops begun (BeginOp)
	made    []*value
	arenaAt []int
	madeAt  []int // the op that made each value
}

// BeginOp implements backend.OpStarter: the ops of a recorded program
// drop the values the op before read last.
func (o *eagerOps) BeginOp() {
	if o.p == nil {
		return
	}
	o.dropPending()
	l := &o.p.life
	if l.ready && !l.off && o.life.op < len(l.dropAfter) {
		for _, n := range l.dropAfter[o.life.op] {
			if n >= len(o.life.made) { // not made yet: the Run diverged
				l.off = true
				break
			}
			v := o.life.made[n]
			if v.t != nil && !v.dropped {
				v.t.Drop()
				o.arena[o.life.arenaAt[n]] = nil
				v.dropped = true
				l.freed++
			}
		}
	}
	o.life.op++
}

// track numbers v, whose tensor is the arena's last, in the order values
// are made.
func (o *eagerOps) track(v *value) {
	if o.p == nil || o.p.life.off {
		return
	}
	v.num = len(o.life.made) + 1
	o.life.made = append(o.life.made, v)
	o.life.arenaAt = append(o.life.arenaAt, len(o.arena)-1)
	o.life.madeAt = append(o.life.madeAt, o.life.op)
}

// read records that the current op reads v (first Run) and fails if v
// was dropped.
func (o *eagerOps) read(v *value) error {
	if v.dropped {
		o.p.life.off = true // v was made by this program's Run
		return errDroppedValue
	}
	if o.p != nil && !o.p.life.ready {
		if v.num > 0 {
			o.reads = append(o.reads, [2]int{v.num - 1, o.life.op})
		} else if v.input > 0 {
			o.inputReads = append(o.inputReads, [2]int{v.input - 1, o.life.op})
		}
	}
	return nil
}

// record ends a successful Run: the first one's reads become the
// program's lifetimes, its results excluded.
func (o *eagerOps) record(results []backend.Value) {
	if o.p == nil {
		return
	}
	l := &o.p.life
	if l.ready || l.off {
		return
	}
	if o.autocasts || len(o.customs) > 0 || o.p.info.GradOther {
		l.off = true
		return
	}
	// lastRead[n] is the op that last read value n, or -1 when no op read
	// it or the Run returned it.
	lastRead := make([]int, len(o.life.made))
	for i := range lastRead {
		lastRead[i] = -1
	}
	for _, r := range o.reads {
		lastRead[r[0]] = max(lastRead[r[0]], r[1])
	}
	l.donation = o.recordDonation(results, lastRead)
	for _, r := range results {
		if v, ok := r.(*value); ok && v.num > 0 {
			lastRead[v.num-1] = -1
		}
	}
	l.dropAfter = make([][]int, o.life.op+1)
	for n, k := range lastRead {
		if k >= 0 {
			l.dropAfter[k] = append(l.dropAfter[k], n)
		}
	}
	l.ready = true
}

// compile-time check that the engine frees values between ops.
var _ backend.OpStarter = (*eagerOps)(nil)
