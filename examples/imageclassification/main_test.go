package main

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The classifier learns from the folder on every engine: after 8 epochs
// on 400 images its validation accuracy is over 0.8, and it calls
// vertical stripes vertical.
func TestImageClassificationLearns(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 8, Train: 400, Verbose: keras.Silent, Seed: 1}, t.TempDir())
		if err != nil {
			return err
		}
		t.Logf("%s: validation accuracy %.3f; %s scored %.3f", spec, r.valAccuracy, r.file, r.score)
		if r.valAccuracy < 0.8 {
			t.Errorf("validation accuracy %.3f, want over 0.8", r.valAccuracy)
		}
		if r.score < 0.5 {
			t.Errorf("vertical stripes scored %.3f, want over 0.5", r.score)
		}
		return nil
	})
}
