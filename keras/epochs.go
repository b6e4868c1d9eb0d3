package keras

import (
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
// numbers an epoch's batches; skip says how many were done already (a
// resumed epoch).
type span struct {
	order      []int
	batch      int
	first, end int
	skip       int
}

// wholeSpan is every sample in order, for evaluation and prediction.
func wholeSpan(n, batch int) span { return span{batch: batch, end: (n + batch - 1) / batch} }

// steps is the number of batches of the span.
func (s span) steps() int { return s.end - s.first }
