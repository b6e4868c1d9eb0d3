package gorgonia

import (
	"sync/atomic"

	"gorgonia.org/tensor"
)

// outputSlot recycles the buffer of one output of a program. Gorgonia's
// Read copies an output out of the machine's storage into a buffer of the
// program's; Run hands that buffer itself to the caller (once the caller
// owns it, the next run cannot overwrite it), and Release gives it back
// for a later run to copy into. A training step so copies each new
// weight and optimizer slot once, into memory it does not allocate.
//
// A slot keeps at most one free buffer, so it holds no more memory than
// the program did when it copied every output twice.
type outputSlot struct {
	shape tensor.Shape // the output's; a scalar output is not recycled
	dtype tensor.Dtype
	free  atomic.Pointer[tensor.Dense]
}

// take returns the slot's free buffer if it has one of the output's shape
// and dtype, or nil (Read then allocates).
func (s *outputSlot) take() *tensor.Dense {
	d := s.free.Swap(nil)
	if d == nil || d.Dtype() != s.dtype || !d.Shape().Eq(s.shape) || d.RequiresIterator() {
		return nil
	}
	return d
}

// lease is one handing-out of a slot's buffer. Only its first release
// returns the buffer, so a tensor released twice cannot put one buffer
// under two outputs, and a stale copy of a tensor whose buffer was
// handed out again returns nothing.
type lease struct {
	slot     *outputSlot
	released atomic.Bool
}

// release returns d to the slot, unless this lease was released before
// or the slot already has a free buffer.
func (l *lease) release(d *tensor.Dense) {
	if l == nil || !l.released.CompareAndSwap(false, true) {
		return
	}
	l.slot.free.CompareAndSwap(nil, d)
}
