package keras

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras/distribution"
)

// passes schedules each epoch's batches over passes through the training
// data, as Keras's EpochIterator does: without StepsPerEpoch an epoch is
// one pass; with it, each epoch takes the next StepsPerEpoch batches of
// the current pass, an epoch ends early when the pass runs out (where
// Keras warns that the input ran out of data), and the next epoch starts a
// new pass. Every pass is shuffled unless shuffling is off, from one
// seeded generator, so the schedule of epoch k is the same in a run
// resumed there.
type passes struct {
	n, batch      int // samples, samples per batch
	perPass       int // batches per pass
	stepsPerEpoch int // 0: a pass per epoch
	shuffle       bool
	rng           *rand.Rand
	order         []int
	next          int // the current pass's next batch; perPass: a new pass is due
	// rank and world shard each pass for data-parallel training: this
	// process trains on distribution.Shard(order, rank, world).
	rank, world int
	shard       []int
}

// newPasses schedules n samples in batches of batch. For data-parallel
// training, process rank of world shuffles the way every
// process does (the seed must be the same on all) and takes its shard of
// each pass, ceil(n/world) samples; rank 0 of 1 trains on all.
func newPasses(n, batch, stepsPerEpoch int, shuffle bool, seed int64, rank, world int) *passes {
	local := n
	if world > 1 {
		local = (n + world - 1) / world
	}
	p := &passes{n: n, batch: batch, perPass: (local + batch - 1) / batch, stepsPerEpoch: stepsPerEpoch, shuffle: shuffle,
		rng: rand.New(rand.NewPCG(uint64(seed), 0x73687566)), order: make([]int, n), rank: rank, world: world}
	for i := range p.order {
		p.order[i] = i
	}
	p.next = p.perPass
	return p
}

// epoch returns the next epoch's span: the sample order and its batches
// [first, end).
func (p *passes) epoch() span {
	if p.next == p.perPass {
		if p.shuffle {
			p.rng.Shuffle(p.n, func(i, j int) { p.order[i], p.order[j] = p.order[j], p.order[i] })
		}
		if p.world > 1 {
			p.shard = distribution.Shard(p.order, p.rank, p.world)
		}
		p.next = 0
	}
	first, end := p.next, p.perPass
	if p.stepsPerEpoch > 0 {
		end = min(first+p.stepsPerEpoch, p.perPass)
	}
	p.next = end
	sp := span{order: p.order, batch: p.batch, first: first, end: end}
	if p.world > 1 {
		sp.order = p.shard
		return sp
	}
	if !p.shuffle {
		sp.order = nil // samples in order: batches are slices of the data, no copy
	}
	return sp
}

// span is a run of batches: batches [first, end) of order (all samples in
// their order when order is nil), each of batch samples (the last of the
// data may be smaller). Steps are numbered from 0 at first, as Keras
// numbers an epoch's batches.
type span struct {
	order      []int
	batch      int
	first, end int
}

// wholeSpan is every sample in order, for evaluation and prediction.
func wholeSpan(n, batch int) span { return span{batch: batch, end: (n + batch - 1) / batch} }

// steps is the number of batches of the span.
func (s span) steps() int { return s.end - s.first }

// trainingEpochs makes the feeds of Fit's epochs: arrays in memory on a
// schedule of passes (arrayEpochs), or batches from a Dataset or a
// generator (batchEpochs).
type trainingEpochs interface {
	// stepsPerEpoch is the number of batches an epoch takes in this
	// process, or -1 when a generator's end says it.
	stepsPerEpoch() int
	// size says how much data this process has, for the processes of a
	// data-parallel job to compare: a count, its unit, and the batch size.
	size() (n int, unit string, batch int)
	// start schedules the epochs, shuffled from seed (the same on every
	// process of a data-parallel job).
	start(seed int64)
	// skipEpoch passes over an epoch done before (a resumed run), so
	// that the next epochs are scheduled as they were.
	skipEpoch()
	// epoch returns the next epoch's feed, whose first skip batches were
	// done before (a resumed run).
	epoch(ctx context.Context, skip int) (feed, error)
}

// arrayEpochs schedules epochs over arrays in memory in batches of batch
// samples.
type arrayEpochs struct {
	d           hostData
	batch, spe  int
	shuffle     bool
	rank, world int
	p           *passes
}

func (a *arrayEpochs) stepsPerEpoch() int {
	n := a.d.samples()
	if a.world > 1 {
		n = (n + a.world - 1) / a.world // this process's shard
	}
	steps := (n + a.batch - 1) / a.batch
	if a.spe > 0 {
		steps = min(steps, a.spe)
	}
	return steps
}

func (a *arrayEpochs) size() (int, string, int) { return a.d.samples(), "samples", a.batch }

func (a *arrayEpochs) start(seed int64) {
	a.p = newPasses(a.d.samples(), a.batch, a.spe, a.shuffle, seed, a.rank, a.world)
}

func (a *arrayEpochs) skipEpoch() { a.p.epoch() }

func (a *arrayEpochs) epoch(_ context.Context, skip int) (feed, error) {
	sp := a.p.epoch()
	if skip > sp.steps() {
		return nil, fmt.Errorf("the epoch has %d batches of %d samples (resume with the data, batch size and StepsPerEpoch of the interrupted run)", sp.steps(), a.batch)
	}
	return newArrayFeed(a.d, sp), nil
}

// batchEpochs schedules epochs over the batches of a batchSource: a
// Dataset's batches in passes (one batch per "sample" of passes), an
// endless Dataset's in turn, or a generator's.
type batchEpochs struct {
	s           *batchSource
	spe         int
	shuffle     bool
	rank, world int
	p           *passes // a Dataset with a Len
}

// newBatchEpochs checks that the source can make epochs of spe batches
// (0: a pass).
func newBatchEpochs(s *batchSource, spe int, shuffle bool, rank, world int) (*batchEpochs, error) {
	e := &batchEpochs{s: s, spe: spe, shuffle: shuffle, rank: rank, world: world}
	switch {
	case spe == 0 && s.b.Dataset != nil && s.b.Dataset.Len() < 0:
		return nil, fmt.Errorf("the Dataset has no end (its Len is -1): give FitOptions.StepsPerEpoch")
	case spe == 0 && s.b.Generator != nil && world > 1:
		return nil, fmt.Errorf("a generator in a data-parallel job needs FitOptions.StepsPerEpoch, so that every process takes the same steps")
	}
	return e, nil
}

func (e *batchEpochs) stepsPerEpoch() int {
	ds := e.s.b.Dataset
	if ds == nil || ds.Len() < 0 {
		if e.spe > 0 {
			return e.spe
		}
		return -1
	}
	steps := (ds.Len() + e.world - 1) / e.world
	if e.spe > 0 {
		steps = min(steps, e.spe)
	}
	return steps
}

func (e *batchEpochs) size() (int, string, int) {
	if ds := e.s.b.Dataset; ds != nil {
		return ds.Len(), "batches in the Dataset", e.spe
	}
	return e.spe, "StepsPerEpoch of the generator", 0
}

func (e *batchEpochs) start(seed int64) {
	if ds := e.s.b.Dataset; ds != nil && ds.Len() >= 0 {
		e.p = newPasses(ds.Len(), 1, e.spe, e.shuffle, seed, e.rank, e.world)
	}
}

func (e *batchEpochs) skipEpoch() {
	switch {
	case e.p != nil:
		e.p.epoch()
	case e.s.b.Dataset != nil:
		e.s.next += e.spe
	}
}

func (e *batchEpochs) epoch(ctx context.Context, skip int) (feed, error) {
	s := e.s
	var idx []int
	steps := e.spe
	switch {
	case s.b.Generator != nil:
		if e.spe == 0 {
			steps = -1
		}
		return &batchFeed{s: s, n: steps, skip: skip, limited: e.spe > 0}, nil
	case e.p != nil: // one batch per sample of the passes
		sp := e.p.epoch()
		steps = sp.steps()
		for k := sp.first + skip; k < sp.end; k++ {
			if sp.order == nil {
				idx = append(idx, k)
			} else {
				idx = append(idx, sp.order[k])
			}
		}
	default: // an endless Dataset: the next batches, every world-th
		for j := s.next + skip; j < s.next+e.spe; j++ {
			idx = append(idx, e.rank+j*e.world)
		}
		s.next += e.spe
	}
	if skip > steps {
		return nil, fmt.Errorf("the epoch has %d batches (resume with the Dataset and StepsPerEpoch of the interrupted run)", steps)
	}
	f := s.indexFeed(ctx, idx)
	f.n = steps
	return f, nil
}
