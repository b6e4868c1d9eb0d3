package keras

import (
	"context"
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// Adapt computes a preprocessing layer's state from data before training,
// Keras's layer.adapt(data): a Normalization layer's mean and variance,
// a Discretization layer's bin boundaries. data is an Array (all of it at
// once, as Keras adapts on a NumPy array) or Batches (the X of every
// batch of a Dataset, in order, or of a generator's pass, loaded by
// Batches.Workers goroutines). The layer may be adapted before or after
// it is put in a model; adapting again replaces its state.
//
// Adapt changes only the layer's own state, when every batch has been
// read: an error leaves the layer as it was. Do not adapt a layer while a
// model that contains it trains or predicts.
func Adapt(ctx context.Context, layer layers.Adapter, data ArraySet) error {
	what := fmt.Sprintf("Adapt %s", layers.Describe(layer))
	switch d := data.(type) {
	case Array:
		return adaptArray(layer, d, what)
	case Arrays:
		if len(d) == 1 {
			return adaptArray(layer, d[0], what)
		}
		return fmt.Errorf("%s: got %d arrays: a preprocessing layer adapts on one array", what, len(d))
	case Batches:
		return adaptBatches(ctx, layer, d, what)
	case nil:
		return fmt.Errorf("%s: no data: give an Array or Batches", what)
	}
	return fmt.Errorf("%s: got %T: give an Array or Batches", what, data)
}

// adaptArray adapts on one array, as one batch.
func adaptArray(layer layers.Adapter, a Array, what string) error {
	if err := a.Validate("the data"); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if a.Samples() == 0 {
		return fmt.Errorf("%s: the data has no samples (shape %v): give at least one", what, a.Shape)
	}
	ad, err := layer.StartAdapt(backend.Shape(a.Shape[1:]))
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := ad.Update(a); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := ad.Finish(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// adaptBatches adapts on every batch of b, in order.
func adaptBatches(ctx context.Context, layer layers.Adapter, b Batches, what string) (retErr error) {
	b, err := b.check()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	var l *loader
	if b.Dataset != nil {
		n := b.Dataset.Len()
		if n < 0 {
			return fmt.Errorf("%s: the Dataset has no end (Len -1): adapt on a Dataset of known length, or a generator that ends", what)
		}
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		l = loadIndices(ctx, b.Dataset, idx, b.Workers, b.MaxQueueSize)
	} else {
		l = loadGenerator(ctx, b.Generator, 0, b.MaxQueueSize)
	}
	defer func() {
		if err := l.stop(); err != nil && retErr == nil {
			retErr = fmt.Errorf("%s: %w", what, err)
		}
	}()
	var ad layers.Adaptation
	for {
		next, ok, err := l.next(ctx)
		if err != nil {
			return fmt.Errorf("%s: waiting for a batch: %w", what, err)
		}
		if !ok {
			break
		}
		if next.err != nil {
			return fmt.Errorf("%s: loading batch %d: %w", what, next.index, next.err)
		}
		a, err := adaptX(next.batch.X)
		if err == nil {
			err = a.Validate("its X")
		}
		if err != nil {
			return fmt.Errorf("%s: batch %d: %w", what, next.index, err)
		}
		if ad == nil {
			if ad, err = layer.StartAdapt(backend.Shape(a.Shape[1:])); err != nil {
				return fmt.Errorf("%s: batch %d: %w", what, next.index, err)
			}
		}
		if err := ad.Update(a); err != nil {
			return fmt.Errorf("%s: batch %d: %w", what, next.index, err)
		}
	}
	if ad == nil {
		return fmt.Errorf("%s: the data yielded no batches: give at least one", what)
	}
	if err := ad.Finish(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// adaptX is a batch's single input array.
func adaptX(x ArraySet) (Array, error) {
	switch x := x.(type) {
	case Array:
		return x, nil
	case Arrays:
		if len(x) == 1 {
			return x[0], nil
		}
		return Array{}, fmt.Errorf("its X has %d arrays: a preprocessing layer adapts on one", len(x))
	case nil:
		return Array{}, fmt.Errorf("it has no X")
	}
	return Array{}, fmt.Errorf("its X is %T: a preprocessing layer adapts on one Array", x)
}
