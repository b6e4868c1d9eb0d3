package keras

import (
	"context"
	"fmt"
)

// batchFeed feeds the batch loop from a batchSource: a Dataset's batches
// at chosen indices, loaded ahead by a loader, or the batches of a
// generator's current pass.
type batchFeed struct {
	s *batchSource
	l *loader // a Dataset's batches; nil for a generator
	n int     // batches; -1: until the generator's pass ends
	// skip is how many of a generator's batches to pass over first (a
	// resumed epoch's done batches).
	skip int
	// limited says n is FitOptions.StepsPerEpoch of a generator, so a
	// pass that ends before is running out of data.
	limited bool
}

func (f *batchFeed) steps() int           { return f.n }
func (f *batchFeed) samplesPerBatch() int { return f.s.sample.samples() }

func (f *batchFeed) next(ctx context.Context, step int) (hostData, bool, error) {
	s := f.s
	if f.l != nil {
		l, ok, err := f.l.next(ctx)
		if err != nil {
			return hostData{}, false, fmt.Errorf("%s: waiting for the Dataset's batch (step %d): %w", s.what, step+1, err)
		}
		if !ok {
			return hostData{}, false, nil
		}
		d, err := s.resolve(l)
		return d, err == nil, err
	}
	for {
		if s.held {
			s.held = false
			if f.skip > 0 {
				f.skip--
				continue
			}
			return s.sample, true, nil
		}
		if s.gen == nil {
			s.gen = loadGenerator(ctx, s.b.Generator, 0, s.b.MaxQueueSize)
		}
		l, ok, err := s.gen.next(ctx)
		if err != nil {
			return hostData{}, false, fmt.Errorf("%s: waiting for the generator's batch (step %d): %w", s.what, step+1, err)
		}
		if !ok {
			s.close()
			if f.limited && step < f.n {
				return hostData{}, false, s.ranOut(step, f.n)
			}
			return hostData{}, false, nil
		}
		if f.skip > 0 {
			f.skip--
			continue
		}
		d, err := s.resolve(l)
		return d, err == nil, err
	}
}

// ranOut handles a generator's pass that ended before StepsPerEpoch
// batches: the epoch ends there, with Keras's warning; in a data-parallel
// job it is an error, since the processes would take different steps.
func (s *batchSource) ranOut(step, stepsPerEpoch int) error {
	if s.warn == nil {
		return fmt.Errorf("%s: the generator ran out of data after %d batches of an epoch of StepsPerEpoch %d: in a data-parallel job every process must yield StepsPerEpoch batches each epoch (repeat the data)", s.what, step, stepsPerEpoch)
	}
	fmt.Fprintln(s.warn, "Warning: Your input ran out of data; interrupting training. Make sure that your dataset or generator can generate at least `steps_per_epoch * epochs` batches. Range over the generator's data again from its start each time it is ranged over (as a tf.data.Dataset's .repeat() does).")
	return nil
}

// close stops loading a Dataset's batches, then tells the Dataset that
// its epoch ended (EpochEnder). A generator's pass goes on into the next
// epoch (FitOptions.StepsPerEpoch); its batchSource stops it.
func (f *batchFeed) close() {
	if f.l == nil {
		return
	}
	f.l.stop() // a Dataset's loader: no generator to misuse yield
	if e, ok := f.s.b.Dataset.(EpochEnder); ok {
		e.OnEpochEnd()
	}
}
