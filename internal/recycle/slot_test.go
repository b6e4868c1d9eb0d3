package recycle

import (
	"sync"
	"testing"
)

func TestLeaseReturnsOnceAndSlotKeepsOne(t *testing.T) {
	var s Slot[int]
	a, b := 1, 2
	la, lb := s.Lease(), s.Lease()
	if la.Return(&a) {
		t.Fatal("the first return to an empty slot was refused")
	}
	if la.Return(&a) {
		t.Fatal("a lease returned twice left its buffer to the caller, which would free the slot's")
	}
	if !lb.Return(&b) {
		t.Fatal("a slot took a second free buffer")
	}
	if got := s.Take(); got != &a {
		t.Fatalf("Take = %v, want the returned buffer", got)
	}
	if got := s.Take(); got != nil {
		t.Fatalf("Take on an empty slot = %v, want nil", got)
	}
	lc := s.Lease()
	lc.Revoke()
	first, again := lc.Return(&b), lc.Return(&b)
	if !first || !again || s.Peek() != nil {
		t.Fatal("a revoked lease gave its buffer to the slot")
	}
	var none *Lease[int]
	none.Revoke()
	if !none.Return(&b) || s.Peek() != nil {
		t.Fatal("a nil lease gave a buffer to the slot")
	}
}

// Many goroutines returning under their own leases: the slot ends with
// exactly one of their buffers, and Take hands it out once.
func TestConcurrentReturnsFillTheSlotOnce(t *testing.T) {
	var s Slot[int]
	bufs := make([]int, 64)
	var wg sync.WaitGroup
	took := make(chan bool, len(bufs))
	for i := range bufs {
		l := s.Lease()
		wg.Add(1)
		go func() {
			defer wg.Done()
			took <- !l.Return(&bufs[i])
		}()
	}
	wg.Wait()
	close(took)
	n := 0
	for ok := range took {
		if ok {
			n++
		}
	}
	if n != 1 || s.Take() == nil || s.Take() != nil {
		t.Fatalf("%d returns were taken, want exactly one buffer in the slot", n)
	}
}

// A closed slot hands back its free buffer and keeps nothing returned
// after: the caller frees those.
func TestClosedSlotLeavesReturnsToTheCaller(t *testing.T) {
	var s Slot[int]
	a, b := 1, 2
	l := s.Lease()
	if l.Return(&a) {
		t.Fatal("an open slot refused a return")
	}
	if got := s.Close(); got != &a {
		t.Fatalf("Close = %v, want the free buffer", got)
	}
	if !s.Lease().Return(&b) || s.Peek() != nil {
		t.Fatal("a closed slot kept a buffer returned after Close")
	}
	if s.Close() != nil {
		t.Fatal("a second Close found a buffer")
	}
}

// Returns racing Close: every buffer ends with exactly one owner, the
// returning caller or Close's caller, and the slot is empty afterwards.
func TestReturnRacingCloseHasOneOwner(t *testing.T) {
	for round := 0; round < 200; round++ {
		var s Slot[int]
		bufs := make([]int, 8)
		owned := make(chan *int, len(bufs)+1)
		var wg sync.WaitGroup
		for i := range bufs {
			l := s.Lease()
			wg.Add(1)
			go func() {
				defer wg.Done()
				if l.Return(&bufs[i]) {
					owned <- &bufs[i]
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if b := s.Close(); b != nil {
				owned <- b
			}
		}()
		wg.Wait()
		close(owned)
		seen := map[*int]bool{}
		for b := range owned {
			if seen[b] {
				t.Fatalf("round %d: buffer %p has two owners", round, b)
			}
			seen[b] = true
		}
		if len(seen) != len(bufs) || s.Peek() != nil {
			t.Fatalf("round %d: %d of %d buffers have an owner, slot holds %v", round, len(seen), len(bufs), s.Peek())
		}
	}
}
