package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/recycle"
	"gorgonia.org/tensor"
)

// outputSlot recycles the buffer of one output of a program. Gorgonia's
// Read copies an output out of the machine's storage into a buffer of the
// program's; Run hands that buffer itself to the caller (once the caller
// owns it, the next run cannot overwrite it), and Release gives it back
// for a later run to copy into (recycle.Slot: at most one free buffer, so
// the program holds no more memory than when it copied every output
// twice). A training step so copies each new weight and optimizer slot
// once, into memory it does not allocate.
type outputSlot struct {
	shape tensor.Shape // the output's; a scalar output is not recycled
	dtype tensor.Dtype
	recycle.Slot[tensor.Dense]
}

// take returns the slot's free buffer if it has one of the output's shape
// and dtype, or nil (Read then allocates).
func (s *outputSlot) take() *tensor.Dense {
	d := s.Take()
	if d == nil || d.Dtype() != s.dtype || !d.Shape().Eq(s.shape) || d.RequiresIterator() {
		return nil
	}
	return d
}
