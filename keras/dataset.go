package keras

import (
	"context"
	"fmt"
	"iter"
)

// Batch is one batch of a Dataset or a generator: its inputs, and for
// Fit and Evaluate its targets and optionally a weight per sample, in the
// forms Fit takes arrays (an Array, Arrays by position or NamedArrays by
// layer name), like the (x, y, sample_weight) tuple a Keras PyDataset
// returns. Predict reads X only.
type Batch struct {
	X, Y         ArraySet
	SampleWeight ArraySet
}

// Dataset is a source of batches by index, Keras's keras.utils.PyDataset:
// Len batches per epoch, and batch i on demand, so that Fit can shuffle
// the batches' order and give each process of a data-parallel job its
// share of them.
//
// Batch is called from the loader goroutines of Batches (Workers of them,
// so concurrently when Workers > 1), never after the Fit, Evaluate or
// Predict it serves has returned. It should return promptly when ctx is
// done. Its batches need not have the same number of samples (the last
// one is often smaller) but must otherwise keep their shapes, except along
// an input's dimensions of any length (None in Keras).
type Dataset interface {
	// Len returns the number of batches in an epoch, or -1 for a dataset
	// without end (Keras's num_batches None); Fit then needs
	// FitOptions.StepsPerEpoch.
	Len() int
	// Batch returns batch i, 0 <= i < Len().
	Batch(ctx context.Context, i int) (Batch, error)
}

// EpochEnder is a Dataset that wants to know when an epoch of Fit ends,
// Keras's PyDataset.on_epoch_end: to reshuffle its samples, say. Fit calls
// OnEpochEnd after the last batch of each epoch has been loaded and
// trained on, when no Batch call is running.
type EpochEnder interface {
	OnEpochEnd()
}

// Batches feeds Fit, Evaluate and Predict from a Dataset or a generator
// instead of arrays in memory: give it as x, with y nil (the targets and
// sample weights are in the batches), as Keras's fit takes a PyDataset,
// a generator or a tf.data.Dataset:
//
//	model.Fit(ctx, keras.Batches{Dataset: pages, Workers: 4}, nil, keras.FitOptions{Epochs: 5})
//
// Batches are loaded ahead of the engine by Workers goroutines, at most
// MaxQueueSize batches ahead, and handed to the engine in their order, so
// a run is as reproducible as its source.
//
// A Dataset's batch order is shuffled each epoch of Fit (with
// FitOptions.Seed; FitOptions.NoShuffle keeps it), as Keras shuffles a
// PyDataset's. A generator's order is its own. In a data-parallel job
// (CompileOptions.Distribution), each process's Fit loads only its share
// of a Dataset's batches (every WorldSize-th of the agreed order); a
// generator runs in every process, each yielding that process's own
// batches, and needs FitOptions.StepsPerEpoch so that every process takes
// the same steps.
type Batches struct {
	// Dataset is a source of batches by index (Keras's PyDataset).
	Dataset Dataset
	// Generator is a source of batches in order, of a length not known in
	// advance (a Python generator or a tf.data.Dataset in Keras): each
	// epoch ranges over it afresh until it ends, unless
	// FitOptions.StepsPerEpoch is set: then epochs take StepsPerEpoch
	// batches each from one pass, and a pass that ends early ends its
	// epoch (Keras's "ran out of data" warning) and the next epoch ranges
	// over it again. A batch with a non-nil error stops the run with that
	// error. Like any range function, it must return once yield returns
	// false: the run waits for it to return before it returns itself.
	Generator iter.Seq2[Batch, error]
	// Workers is the number of goroutines that load batches (Keras's
	// PyDataset workers); 0 means 1. A Generator is read by one goroutine.
	Workers int
	// MaxQueueSize is how many batches may be loaded ahead of the engine
	// (Keras's max_queue_size); 0 means Keras's default, 10.
	MaxQueueSize int
}

// ForNames refuses Batches where only arrays go: a TrainOnBatch, a
// custom step's data, or Batches given as y or as sample weights.
func (Batches) ForNames([]string, string) ([]Array, error) {
	return nil, fmt.Errorf("keras.Batches holds whole batches: give it as x to Fit, Evaluate or Predict (with y nil), or as ValidationData.X")
}

// check reports a Batches that cannot be read, and resolves its defaults.
func (b Batches) check() (Batches, error) {
	switch {
	case b.Dataset == nil && b.Generator == nil:
		return b, fmt.Errorf("keras.Batches has neither a Dataset nor a Generator: give one")
	case b.Dataset != nil && b.Generator != nil:
		return b, fmt.Errorf("keras.Batches has both a Dataset and a Generator: give one")
	case b.Workers < 0:
		return b, fmt.Errorf("keras.Batches.Workers is %d: give the number of loading goroutines, or 0 for 1", b.Workers)
	case b.MaxQueueSize < 0:
		return b, fmt.Errorf("keras.Batches.MaxQueueSize is %d: give how many batches to load ahead, or 0 for Keras's 10", b.MaxQueueSize)
	}
	if b.Dataset != nil && b.Dataset.Len() < -1 {
		return b, fmt.Errorf("the Dataset's Len is %d: give the number of batches, or -1 for a dataset without end", b.Dataset.Len())
	}
	b.Workers = max(b.Workers, 1)
	if b.MaxQueueSize == 0 {
		b.MaxQueueSize = 10
	}
	if b.Generator != nil {
		b.Workers = 1
	}
	return b, nil
}
