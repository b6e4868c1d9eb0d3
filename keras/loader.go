package keras

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// loader loads batches ahead of the batch loop in goroutines and hands
// them over in order: the batches of a Dataset at given indices (by
// several workers), or those a generator yields (by one). At most queue
// batches wait, loaded or being loaded. stop cancels loading and waits
// for every goroutine, so that no Batch call outlives its run.
type loader struct {
	cancel  context.CancelFunc
	pending chan chan loaded // one per batch, in order
	wg      sync.WaitGroup
	// misuse is set when a generator yielded again after yield returned
	// false (it was then stopped); stop returns it.
	misuse error
}

// errYieldAfterFalse stops a generator that yields after yield returned
// false, as Go's range-over-func does; without it, a generator that
// ignores yield's result would never return and the run would wait for
// it forever.
var errYieldAfterFalse = errors.New("the generator yielded again after yield returned false")

// loaded is one batch as its source returned it, or its error; index is
// its place in the source (the Dataset's index; the generator's count).
type loaded struct {
	index int
	batch Batch
	err   error
}

// loadIndices starts loading ds's batches idx[0], idx[1], ... with
// workers goroutines.
func loadIndices(ctx context.Context, ds Dataset, idx []int, workers, queue int) *loader {
	ctx, cancel := context.WithCancel(ctx)
	l := &loader{cancel: cancel, pending: make(chan chan loaded, queue)}
	type job struct {
		index int
		out   chan loaded
	}
	jobs := make(chan job)
	for range workers {
		l.wg.Go(func() {
			for j := range jobs {
				b, err := batchAt(ctx, ds, j.index)
				j.out <- loaded{index: j.index, batch: b, err: err}
			}
		})
	}
	l.wg.Go(func() {
		defer close(l.pending)
		defer close(jobs)
		for _, i := range idx {
			out := make(chan loaded, 1)
			select {
			case l.pending <- out: // waits while queue batches are ahead
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- job{index: i, out: out}:
			case <-ctx.Done():
				return
			}
		}
	})
	return l
}

// batchAt calls ds.Batch, turning a panic into an error naming the batch
// (a panic in a loader goroutine would end the whole program).
func batchAt(ctx context.Context, ds Dataset, i int) (b Batch, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the Dataset's Batch(%d) panicked: %v", i, p)
		}
	}()
	return ds.Batch(ctx, i)
}

// loadGenerator starts ranging over gen in one goroutine; the batches
// are counted from first.
func loadGenerator(ctx context.Context, gen func(yield func(Batch, error) bool), first, queue int) *loader {
	ctx, cancel := context.WithCancel(ctx)
	l := &loader{cancel: cancel, pending: make(chan chan loaded, queue)}
	l.wg.Go(func() {
		defer close(l.pending)
		i := first
		stopped := false
		send := func(b Batch, err error) bool {
			if stopped {
				panic(errYieldAfterFalse)
			}
			out := make(chan loaded, 1)
			out <- loaded{index: i, batch: b, err: err}
			i++
			select {
			case l.pending <- out:
				stopped = err != nil
			case <-ctx.Done():
				stopped = true
			}
			return !stopped
		}
		defer func() {
			if p := recover(); p == errYieldAfterFalse {
				l.misuse = fmt.Errorf("%w (after %d batches): a generator must return once yield returns false (write `if !yield(batch, nil) { return }`)", errYieldAfterFalse, i-first)
			} else if p != nil {
				stopped = false
				send(Batch{}, fmt.Errorf("the generator panicked after %d batches: %v", i-first, p))
			}
		}()
		gen(send)
	})
	return l
}

// next returns the next batch; ok is false when the source has no more.
// It waits for the batch until ctx is done.
func (l *loader) next(ctx context.Context) (loaded, bool, error) {
	var out chan loaded
	select {
	case o, ok := <-l.pending:
		if !ok {
			return loaded{}, false, nil
		}
		out = o
	case <-ctx.Done():
		return loaded{}, false, ctx.Err()
	}
	select {
	case r := <-out:
		return r, true, nil
	case <-ctx.Done():
		return loaded{}, false, ctx.Err()
	}
}

// stop cancels loading and waits for the loading goroutines to return;
// its error is a generator's misuse of yield (errYieldAfterFalse).
func (l *loader) stop() error {
	l.cancel()
	for range l.pending { // unblock a sender
	}
	l.wg.Wait()
	return l.misuse
}
