package keras

import (
	"context"
	"fmt"
	"io"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/distribution"
)

// batchSource is a Batches being read by one Fit (its training or its
// validation data), Evaluate or Predict: it resolves each loaded batch
// against the model as arrays are resolved, checks that the batches keep
// the first one's shapes, and makes the feeds of its epochs.
type batchSource struct {
	m           *Model
	b           Batches
	what        string // "Fit", "validation", "Evaluate" or "Predict"
	targets     bool   // the batches' Y and SampleWeight are read
	classWeight map[int]float64
	custom      bool // the batches feed a custom step, whose data need not match the model
	c           *compiled
	// sample is the first batch, resolved: it builds the model, traces a
	// custom step, and its shapes are those every batch must keep.
	sample hostData
	// A generator's current pass, and whether its first batch is sample,
	// not yet fed.
	gen  *loader
	held bool
	// next is the index of an endless Dataset's next batch in Fit.
	next int
	// warn receives Keras's warning when a generator runs out of data
	// before StepsPerEpoch; nil in a data-parallel job, where it is an
	// error (the processes would take different steps).
	warn io.Writer
}

// openBatches checks b and loads and resolves its first batch, which
// builds the model if it is not built yet.
func (m *Model) openBatches(ctx context.Context, b Batches, what string, targets bool, classWeight map[int]float64) (*batchSource, error) {
	b, err := b.check()
	if err != nil {
		return nil, err
	}
	s := &batchSource{m: m, b: b, what: what, targets: targets, classWeight: classWeight,
		custom: m.hasCustomStep(trainStep) && what == "Fit" || m.hasCustomStep(evalStep) && (what == "Evaluate" || what == "validation")}
	var first loaded
	if ds := b.Dataset; ds != nil {
		if ds.Len() == 0 {
			return nil, fmt.Errorf("%s: the Dataset has no batches (its Len is 0)", what)
		}
		first.batch, first.err = batchAt(ctx, ds, 0)
	} else {
		s.gen = loadGenerator(ctx, b.Generator, 0, b.MaxQueueSize)
		var ok bool
		if first, ok, err = s.gen.next(ctx); err != nil {
			s.close()
			return nil, fmt.Errorf("%s: waiting for the generator's first batch: %w", what, err)
		} else if !ok {
			s.close()
			return nil, fmt.Errorf("%s: the generator yielded no batches", what)
		}
		s.held = true
	}
	if s.sample, err = s.resolve(first); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// resolve turns a loaded batch into arrays the step takes, checked as
// Fit checks arrays, and against the first batch's shapes.
func (s *batchSource) resolve(l loaded) (hostData, error) {
	if l.err != nil {
		return hostData{}, fmt.Errorf("%s: loading batch %d: %w", s.what, l.index, l.err)
	}
	fail := func(err error) (hostData, error) {
		return hostData{}, fmt.Errorf("%s: batch %d: %w", s.what, l.index, err)
	}
	x, y := l.batch.X, l.batch.Y
	if x == nil {
		return fail(fmt.Errorf("it has no X: give the inputs in Batch.X"))
	}
	if _, ok := x.(Batches); ok {
		return fail(fmt.Errorf("its X is a keras.Batches: give arrays"))
	}
	if !s.targets {
		y = nil
	} else if y == nil && !s.custom {
		return fail(fmt.Errorf("it has no Y: %s needs the targets in Batch.Y", s.what))
	}
	d, c, err := s.m.resolveData(x, y, s.what, false)
	if err != nil {
		return fail(err)
	}
	s.c = c
	if s.targets {
		if d.sw, err = s.m.sampleWeights(c, d, l.batch.SampleWeight, s.classWeight); err != nil {
			return fail(err)
		}
	}
	if s.sample.x != nil {
		if err := s.sameShapes(d); err != nil {
			return fail(err)
		}
	}
	return d, nil
}

// sameShapes reports a batch whose arrays differ from the first batch's
// in number or in shape, except in the number of samples and along the
// model's dimensions of any length: the compiled steps would not take it.
func (s *batchSource) sameShapes(d hostData) error {
	groups := []struct {
		what      string
		got, want []Array
		model     func(i int) backend.Shape
	}{
		{"X", d.x, s.sample.x, func(i int) backend.Shape { return s.m.inputs[i].Shape() }},
		{"Y", d.y, s.sample.y, func(i int) backend.Shape { return s.m.outputs[i].Shape() }},
		{"SampleWeight", d.sw, s.sample.sw, nil},
	}
	for _, g := range groups {
		if (g.got == nil) != (g.want == nil) || len(g.got) != len(g.want) {
			return fmt.Errorf("it has %d %s arrays, but batch 0 had %d: every batch must have the same arrays", len(g.got), g.what, len(g.want))
		}
		for i, a := range g.got {
			want := g.want[i].Shape
			same := len(a.Shape) == len(want)
			for k := 1; same && k < len(want); k++ {
				anyLength := !s.custom && g.model != nil && k < len(g.model(i)) && g.model(i)[k] < 0
				same = a.Shape[k] == want[k] || anyLength
			}
			if !same {
				return fmt.Errorf("%s array %d has shape %v, but batch 0's had %v: every batch must keep its shapes but for the number of samples", g.what, i, backend.Shape(a.Shape), backend.Shape(want))
			}
		}
	}
	return nil
}

// readBatches opens b for an Evaluate or a Predict (what; the targets
// are read for an evaluation), readies the engine, and returns the source
// and the feed of its batches, which the caller closes.
func (m *Model) readBatches(ctx context.Context, b Batches, what string, targets bool) (*batchSource, *binding, feed, error) {
	src, err := m.openBatches(ctx, b, what, targets, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	bind, err := m.engine()
	var f feed
	if err == nil {
		f, err = src.evalFeed(ctx)
	}
	if err != nil {
		src.close()
		return nil, nil, nil, err
	}
	return src, bind, f, nil
}

// evalFeed returns the feed of an evaluation or a prediction: every
// batch in order (a new pass of a generator); in a data-parallel job, an
// evaluation of a Dataset reads this process's block of its batches.
func (s *batchSource) evalFeed(ctx context.Context) (feed, error) {
	ds := s.b.Dataset
	if ds == nil {
		return &batchFeed{s: s, n: -1}, nil
	}
	n := ds.Len()
	if n < 0 {
		return nil, fmt.Errorf("%s: the Dataset has no end (its Len is -1): give one with a Len to evaluate or predict on", s.what)
	}
	from, to := 0, n
	if dp := s.m.dist(); dp != nil && s.what != "Predict" {
		from, to = distribution.Block(n, dp.Rank(), dp.WorldSize())
	}
	idx := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		idx = append(idx, i)
	}
	return s.indexFeed(ctx, idx), nil
}

// indexFeed loads the Dataset's batches idx in order.
func (s *batchSource) indexFeed(ctx context.Context, idx []int) *batchFeed {
	return &batchFeed{s: s, n: len(idx), l: loadIndices(ctx, s.b.Dataset, idx, s.b.Workers, s.b.MaxQueueSize)}
}

// close stops a generator's pass; its error is the generator's misuse
// of yield, if it yielded after yield returned false.
func (s *batchSource) close() error {
	var err error
	if s.gen != nil {
		err = s.gen.stop()
		s.gen = nil
	}
	s.held = false
	return err
}

// closeInto closes s and keeps its error in *err unless *err holds one
// already: for a deferred close.
func (s *batchSource) closeInto(err *error) {
	if e := s.close(); e != nil && *err == nil {
		*err = e
	}
}
