package main

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The classifier learns from the folder on every engine: after 8 epochs
// on 2000 reviews its validation accuracy is over 0.85; the saved and
// reloaded model scores the validation texts as the trained one did and
// tells a positive sentence from a negative one.
func TestTextClassificationLearns(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 8, Train: 2000, Verbose: keras.Silent, Seed: 1}, t.TempDir())
		if err != nil {
			return err
		}
		t.Logf("%s: validation accuracy %.3f; new sentences scored %v", spec, r.valAccuracy, r.scores)
		if r.valAccuracy < 0.85 {
			t.Errorf("validation accuracy %.3f, want over 0.85", r.valAccuracy)
		}
		if !r.sameScores {
			t.Errorf("the reloaded model scores the validation texts differently")
		}
		if r.scores[0] < 0.5 || r.scores[1] > 0.5 {
			t.Errorf("the positive sentence scored %.3f and the negative %.3f", r.scores[0], r.scores[1])
		}
		return nil
	})
}
