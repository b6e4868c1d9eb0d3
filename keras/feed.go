package keras

import (
	"context"
)

// feed hands the batch loop (run.runBatches) the batches of one epoch,
// evaluation or prediction, resolved against the model: slices of arrays
// in memory (arrayFeed), or batches loaded from a Dataset or a generator
// (batchFeed).
type feed interface {
	// steps returns the number of batches, or -1 when the data's end
	// says it (a generator).
	steps() int
	// next returns the batch of step (0, 1, ... from the first step the
	// loop runs, in order); ok is false when the data has ended.
	next(ctx context.Context, step int) (b hostData, ok bool, err error)
	// samplesPerBatch is the number of samples of a full batch, to count
	// the samples of the batches a resumed epoch skips.
	samplesPerBatch() int
	// close stops any loading; the feed is not used after.
	close()
}

// arrayFeed slices the batches of a span out of arrays in memory: no copy
// for samples in order, a gather into reused buffers for a shuffled or
// sharded order.
type arrayFeed struct {
	d  hostData
	sp span
	n  int // samples in the span's order
	g  gatherer
}

func newArrayFeed(d hostData, sp span) *arrayFeed {
	n := d.samples()
	if sp.order != nil { // a shuffled or sharded order (distribution.Shard)
		n = len(sp.order)
	}
	return &arrayFeed{d: d, sp: sp, n: n}
}

func (f *arrayFeed) steps() int           { return f.sp.steps() }
func (f *arrayFeed) samplesPerBatch() int { return f.sp.batch }
func (f *arrayFeed) close()               {}

func (f *arrayFeed) next(_ context.Context, step int) (hostData, bool, error) {
	from := (f.sp.first + step) * f.sp.batch
	to := min(from+f.sp.batch, f.n)
	if f.sp.order == nil { // contiguous samples: slice them, no copy
		return f.d.rows(from, to), true, nil
	}
	return f.g.gather(f.d, f.sp.order[from:to]), true, nil
}
