package serving

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kerasgo/kerasgo/internal/inputcheck"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/prometheus/client_golang/prometheus"
)

// task is one :predict request waiting for its batch.
type task struct {
	ctx  context.Context
	req  *predictRequest
	done chan taskResult // buffered: a worker never waits for the handler
}

type taskResult struct {
	outs []keras.Array // one per model output, the request's rows
	err  error
}

// batcher runs one model version's predictions: requests queue (bounded),
// and each time a worker is free a collector gathers the requests queued
// into a batch of equal sample shapes for it (dynamic batching). A lone
// request runs at once; under load, the requests that arrive while the
// workers are busy form the next batches.
type batcher struct {
	model     *keras.Model
	opts      BatchingOptions
	batchSize prometheus.Observer
	queuedG   prometheus.Gauge

	queue  chan *task
	idle   chan struct{} // a token from each worker waiting for a batch
	work   chan []*task
	queued atomic.Int64 // tasks submitted and not yet handed to a worker
	busy   atomic.Int64 // batches running

	mu      sync.Mutex // guards closed and sends on queue
	closed  bool
	running sync.WaitGroup // the collector and the workers
}

func newBatcher(m *keras.Model, opts BatchingOptions, batchSize prometheus.Observer, queued prometheus.Gauge) *batcher {
	b := &batcher{model: m, opts: opts, batchSize: batchSize, queuedG: queued,
		queue: make(chan *task, opts.MaxQueued), idle: make(chan struct{}, max(opts.Workers, 1)), work: make(chan []*task)}
	b.running.Add(1 + opts.Workers)
	go b.collect()
	for range opts.Workers {
		go b.runBatches()
	}
	return b
}

// errQueueFull and errClosed are answered 503.
var (
	errQueueFull = &statusError{code: 503, msg: "too many requests are waiting for the model: retry later (the queue holds Batching.MaxQueued, -max-queued, requests)"}
	errClosed    = &statusError{code: 503, msg: "the server is shutting down"}
)

// submit queues t, or refuses it at once when the queue is full or the
// batcher is closed: it never blocks.
func (b *batcher) submit(t *task) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return errClosed
	}
	if b.queued.Load() >= int64(b.opts.MaxQueued) {
		return errQueueFull
	}
	b.queuedG.Set(float64(b.queued.Add(1)))
	b.queue <- t // cannot block: the channel holds MaxQueued and at most MaxQueued tasks are queued
	return nil
}

// close stops taking requests, answers every request queued, and returns
// when the last batch has run.
func (b *batcher) close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.queue)
	}
	b.mu.Unlock()
	b.running.Wait()
}

// collect forms batches: when a worker is free, it takes the oldest
// request, gathers behind it the requests of the same sample shapes, up
// to MaxBatchSize samples, and hands the batch to the worker. Requests of
// other shapes wait, in order, for the next batches.
func (b *batcher) collect() {
	defer b.running.Done()
	defer close(b.work)
	var held []*task
	open := true
	for open || len(held) > 0 {
		<-b.idle
		var first *task
		if len(held) > 0 {
			first, held = held[0], held[1:]
		} else if first, open = <-b.queue; !open {
			break
		}
		batch := []*task{first}
		if !b.opts.Disabled {
			batch, held, open = b.gather(batch, held)
		}
		b.queuedG.Set(float64(b.queued.Add(-int64(len(batch)))))
		b.work <- batch
	}
}

// gather adds to a batch the held requests that fit it, then the queued
// ones, waiting up to the timeout for more (without a timeout, only those
// already queued), until MaxBatchSize samples. It returns the batch, the
// requests held for later batches, and whether the queue is still open.
func (b *batcher) gather(batch, held []*task) ([]*task, []*task, bool) {
	key, rows := batch[0].req.key, batch[0].req.rows
	fits := func(t *task) bool { return t.req.key == key && rows+t.req.rows <= b.opts.MaxBatchSize }
	var rest []*task
	for _, t := range held {
		if fits(t) {
			batch, rows = append(batch, t), rows+t.req.rows
		} else {
			rest = append(rest, t)
		}
	}
	held = rest
	// Wait for more only under load (a batch running, or more than one
	// request queued): a lone request at an idle server runs at once.
	var timeout <-chan time.Time // nil: take only what has queued
	if b.opts.Timeout > 0 && (b.busy.Load() > 0 || len(batch) > 1 || len(b.queue) > 0) {
		timer := time.NewTimer(b.opts.Timeout)
		defer timer.Stop()
		timeout = timer.C
	}
	for rows < b.opts.MaxBatchSize {
		var t *task
		var ok bool
		select {
		case t, ok = <-b.queue:
		default:
			if timeout == nil {
				return batch, held, true
			}
			select {
			case t, ok = <-b.queue:
			case <-timeout:
				return batch, held, true
			}
		}
		if !ok {
			return batch, held, false
		}
		if !fits(t) {
			held = append(held, t)
			if t.req.key == key {
				return batch, held, true // full
			}
			continue
		}
		batch, rows = append(batch, t), rows+t.req.rows
	}
	return batch, held, true
}

// runBatches runs the batches the collector forms until it stops.
func (b *batcher) runBatches() {
	defer b.running.Done()
	for {
		b.idle <- struct{}{} // never blocks: one token per worker at most
		batch, ok := <-b.work
		if !ok {
			return
		}
		b.busy.Add(1)
		b.run(batch)
		b.busy.Add(-1)
	}
}

// run predicts one batch and answers its requests. Requests whose time
// ran out while they queued are answered without running. If a batch of
// several requests fails, each runs alone, so that one request the model
// cannot take does not fail the others.
func (b *batcher) run(batch []*task) {
	live := batch[:0]
	for _, t := range batch {
		if err := t.ctx.Err(); err != nil {
			t.done <- taskResult{err: err}
			continue
		}
		live = append(live, t)
	}
	if len(live) == 0 {
		return
	}
	ctx, stop := batchContext(live)
	outs, err := b.predict(ctx, live)
	stop()
	if err != nil && ctx.Err() != nil {
		// Every request of the batch was cancelled or timed out (their
		// handlers answered already): the engine stopped between batches.
		for _, t := range live {
			t.done <- taskResult{err: t.ctx.Err()}
		}
		return
	}
	if err != nil && len(live) > 1 {
		for _, t := range live {
			b.run([]*task{t})
		}
		return
	}
	if err != nil {
		live[0].done <- taskResult{err: fmt.Errorf("the model failed on this request: %w", err)}
		return
	}
	from := 0
	for _, t := range live {
		res := make([]keras.Array, len(outs))
		for i, o := range outs {
			res[i] = o.Rows(from, from+t.req.rows)
		}
		from += t.req.rows
		t.done <- taskResult{outs: res}
	}
}

// batchContext returns a context that is cancelled once every task's
// context is done (each request timed out or its client went away), so
// that the engine stops between batches instead of computing answers
// nobody waits for, and frees the worker for the next requests. stop
// releases it.
func batchContext(tasks []*task) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var left atomic.Int64
	left.Store(int64(len(tasks)))
	stops := make([]func() bool, len(tasks))
	for i, t := range tasks {
		stops[i] = context.AfterFunc(t.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, s := range stops {
			s()
		}
		cancel()
	}
}

// predict runs the tasks' samples as one batch, padded with zero samples
// to an allowed batch size, and returns the outputs of the real samples.
// It stops between engine batches when ctx is done.
func (b *batcher) predict(ctx context.Context, tasks []*task) ([]keras.Array, error) {
	rows := 0
	for _, t := range tasks {
		rows += t.req.rows
	}
	b.batchSize.Observe(float64(rows))
	if limit := b.opts.MaxBatchSize; len(tasks) == 1 && rows > limit && rows%limit != 0 {
		// A large request runs its whole batches on its own arrays (no
		// copy) and pads only its last, partial batch: padding all of it
		// would copy the whole request once more.
		return b.predictLarge(ctx, tasks[0], rows)
	}
	total, batchSize := paddedSize(rows, b.opts.MaxBatchSize)
	x := tasks[0].req.x
	if len(tasks) > 1 || total > rows {
		x = concatRows(tasks, total)
	}
	// Each request's inputs were checked when it came (CheckInputs), so
	// the batch's are not scanned again.
	outs, err := b.model.PredictOutputs(inputcheck.WithChecked(ctx), keras.Arrays(x), keras.PredictOptions{BatchSize: batchSize})
	if err != nil {
		return nil, err
	}
	for i, o := range outs {
		outs[i] = o.Rows(0, rows)
	}
	return outs, nil
}

// predictLarge predicts a request of more than MaxBatchSize samples: the
// whole batches on views of its arrays, then the rest padded to an
// allowed size, and joins the outputs.
func (b *batcher) predictLarge(ctx context.Context, t *task, rows int) ([]keras.Array, error) {
	ctx = inputcheck.WithChecked(ctx)
	limit := b.opts.MaxBatchSize
	whole := rows / limit * limit
	head := make(keras.Arrays, len(t.req.x))
	for i, a := range t.req.x {
		head[i] = a.Rows(0, whole)
	}
	outs, err := b.model.PredictOutputs(ctx, head, keras.PredictOptions{BatchSize: limit})
	if err != nil {
		return nil, err
	}
	rest := rows - whole
	total, batchSize := paddedSize(rest, limit)
	tail := &task{req: &predictRequest{rows: rest, x: make([]keras.Array, len(t.req.x))}}
	for i, a := range t.req.x {
		tail.req.x[i] = a.Rows(whole, rows)
	}
	tailOuts, err := b.model.PredictOutputs(ctx, keras.Arrays(concatRows([]*task{tail}, total)), keras.PredictOptions{BatchSize: batchSize})
	if err != nil {
		return nil, err
	}
	for i, o := range outs {
		per := len(o.Data) / max(o.Shape[0], 1)
		joined := keras.Array{Shape: append([]int{rows}, o.Shape[1:]...), Data: make([]float32, 0, rows*per)}
		joined.Data = append(joined.Data, o.Data...)
		joined.Data = append(joined.Data, tailOuts[i].Data[:rest*per]...)
		outs[i] = joined
	}
	return outs, nil
}

// paddedSize returns the number of samples a batch of rows runs as, and
// the batch size it runs in: the next power of two up to maxBatch, or
// for more than maxBatch, the next multiple of maxBatch in batches of
// maxBatch. So a model compiles a few programs (1, 2, 4, ... maxBatch),
// whatever sizes the requests have.
func paddedSize(rows, maxBatch int) (total, batchSize int) {
	if rows > maxBatch {
		return (rows + maxBatch - 1) / maxBatch * maxBatch, maxBatch
	}
	s := 1
	for s < rows {
		s *= 2
	}
	s = min(s, maxBatch)
	return s, s
}

// concatRows joins the tasks' inputs into one array per input of total
// samples, the samples past theirs zero (or "").
func concatRows(tasks []*task, total int) []keras.Array {
	x := make([]keras.Array, len(tasks[0].req.x))
	for i, first := range tasks[0].req.x {
		shape := append([]int{total}, first.Shape[1:]...)
		n := total * product(first.Shape[1:])
		switch {
		case first.Strings != nil:
			x[i] = keras.Array{Shape: shape, Strings: joinRows(tasks, i, n, func(a keras.Array) []string { return a.Strings })}
		case first.Ints != nil:
			x[i] = keras.Array{Shape: shape, Ints: joinRows(tasks, i, n, func(a keras.Array) []int32 { return a.Ints })}
		default:
			x[i] = keras.Array{Shape: shape, Data: joinRows(tasks, i, n, func(a keras.Array) []float32 { return a.Data })}
		}
	}
	return x
}

// joinRows joins the values of input i of every task, padded with zero
// values to n.
func joinRows[T any](tasks []*task, i, n int, values func(keras.Array) []T) []T {
	out := make([]T, 0, n)
	for _, t := range tasks {
		out = append(out, values(t.req.x[i])...)
	}
	return out[:n]
}
