package main

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The hand-written TrainOnBatch loop learns, and ends with the weights
// Fit reaches on the same batches (within 1e-6), on every engine.
func TestTrainLoopMatchesFit(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 2, Train: 2000, Test: 500, Verbose: keras.Silent, Seed: 1})
		if err != nil {
			return err
		}
		t.Logf("%s: held-out accuracy by epoch %v; loop and Fit differ by %g", spec, r.accuracy, r.maxDiff)
		if r.maxDiff > 1e-6 {
			t.Errorf("the loop's weights differ from Fit's by %g, want at most 1e-6", r.maxDiff)
		}
		if last := r.accuracy[len(r.accuracy)-1]; last < 0.6 {
			t.Errorf("held-out accuracy %.3f after the loop, want at least 0.6", last)
		}
		return nil
	})
}
