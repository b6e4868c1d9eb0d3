package keras

import (
	"context"
	"errors"

	"github.com/kerasgo/kerasgo/keras/callbacks"
)

// Keras's lower-level loop (guide "Writing a training loop from
// scratch"): one step on one batch, the whole of the data given, with
// the same compiled steps Fit, Evaluate and Predict run.

// OnBatchOptions are the optional arguments of TrainOnBatch and
// TestOnBatch.
type OnBatchOptions struct {
	// SampleWeight weighs each sample's loss, as in FitOptions.
	SampleWeight ArraySet
	// ClassWeight weighs each sample's loss by its class (TrainOnBatch
	// only), as in FitOptions.
	ClassWeight map[int]float64
}

// TrainOnBatch runs one training step on (x, y), all of it one batch, and
// returns that step's loss and metrics (Keras's model.train_on_batch,
// which resets the metrics first: the logs are this batch's). The model
// trains as Fit trains it, one step of Fit's with the same batch; a loop
// of TrainOnBatch over the batches Fit would make (FitOptions.NoShuffle)
// ends with Fit's weights. It is exclusive with Fit: one of them at a
// time on a model.
func (m *Model) TrainOnBatch(ctx context.Context, x, y ArraySet, opts OnBatchOptions) (callbacks.Logs, error) {
	d, c, bind, err := m.startTraining(x, y, "TrainOnBatch", opts.SampleWeight, opts.ClassWeight, 0)
	if err != nil {
		return nil, err
	}
	defer m.endFit()
	m.stopRequested.Store(false)
	n := d.samples()
	logs, _, err := m.newRun(bind, c, nil).trainEpoch(ctx, newArrayFeed(d, wholeSpan(n, n)), 0, resumePoint{})
	return logs, err
}

// TestOnBatch evaluates (x, y), all of it one batch, and returns its loss
// and metrics (Keras's model.test_on_batch).
func (m *Model) TestOnBatch(ctx context.Context, x, y ArraySet, opts OnBatchOptions) (callbacks.Logs, error) {
	if y == nil && !m.hasCustomStep(evalStep) {
		return nil, errors.New("TestOnBatch got no y: give the targets")
	}
	if opts.ClassWeight != nil {
		return nil, errors.New("TestOnBatch takes no ClassWeight (as in Keras): give SampleWeight")
	}
	d, c, bind, err := m.prepare(x, y, "TestOnBatch")
	if err != nil {
		return nil, err
	}
	if d.sw, err = m.sampleWeights(c, d, opts.SampleWeight, nil); err != nil {
		return nil, err
	}
	return m.newRun(bind, c, nil).evaluateArrays(ctx, d, d.samples())
}

// PredictOnBatch returns the model's outputs for x, all of it one batch,
// one Array per output (Keras's model.predict_on_batch). Like Predict, it
// works on a model that was never compiled.
func (m *Model) PredictOnBatch(ctx context.Context, x ArraySet) ([]Array, error) {
	d, c, bind, err := m.prepare(x, nil, "Predict")
	if err != nil {
		return nil, err
	}
	return m.newRun(bind, c, nil).predictArrays(ctx, d, d.samples())
}
