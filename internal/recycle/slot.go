package recycle

import "sync/atomic"

// Slot holds at most one free buffer for one output of a program, so a
// program keeps no more memory than one extra copy of its outputs.
type Slot[T any] struct {
	free   atomic.Pointer[T]
	closed atomic.Bool
}

// Close empties the slot for good: it returns the free buffer (nil if
// none) for the caller to free, and every later Return leaves its buffer
// to the caller, so a program closed while its outputs are still held
// does not keep their memory once they are released.
func (s *Slot[T]) Close() *T {
	s.closed.Store(true)
	return s.free.Swap(nil)
}

// Take removes and returns the slot's free buffer, or nil if it has none.
func (s *Slot[T]) Take() *T { return s.free.Swap(nil) }

// Peek returns the slot's free buffer without removing it, or nil.
func (s *Slot[T]) Peek() *T { return s.free.Load() }

// Lease returns a new lease on the slot, to hand out with an output.
func (s *Slot[T]) Lease() *Lease[T] { return &Lease[T]{slot: s} }

// Lease is one handing-out of an output: only its first Return gives the
// buffer back, so a tensor released twice cannot put one buffer under two
// outputs, and a stale copy of a tensor whose buffer was handed out again
// returns nothing.
type Lease[T any] struct {
	slot  *Slot[T]
	state atomic.Int32 // active, returned or revoked
}

const (
	active int32 = iota
	returned
	revoked
)

// Return gives b back to the slot. It reports whether the caller still
// owns b, and frees it itself if it must: true when the slot has a free
// buffer already, when the lease was revoked, or when the lease is nil;
// false when the slot took b, or when this lease was returned before (b's
// memory may be another output's by now). After the slot's Close, the
// caller owns b.
func (l *Lease[T]) Return(b *T) (callerOwns bool) {
	if l == nil {
		return true
	}
	if !l.state.CompareAndSwap(active, returned) {
		return l.state.Load() == revoked
	}
	s := l.slot
	if !s.free.CompareAndSwap(nil, b) {
		return true
	}
	// A Close that ran before this check has taken b or will find it
	// gone: whichever of the two swaps b out owns it.
	if s.closed.Load() {
		return s.free.CompareAndSwap(b, nil)
	}
	return false
}

// Revoke ends the lease without returning anything: the buffer is shared
// now (a later run's output views it), so it must never be overwritten;
// Return then leaves it to the caller. Revoking a returned lease does
// nothing.
func (l *Lease[T]) Revoke() {
	if l != nil {
		l.state.CompareAndSwap(active, revoked)
	}
}

// Active reports whether the lease is neither returned nor revoked: the
// buffer is its output's alone (a nil lease is not active).
func (l *Lease[T]) Active() bool {
	return l != nil && l.state.Load() == active
}
