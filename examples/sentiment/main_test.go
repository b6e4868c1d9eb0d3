package main

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The classifier learns on every engine: held-out accuracy well above
// the 0.5 of chance after 3 epochs on 1,500 reviews.
func TestSentimentLearns(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		acc, err := run(context.Background(), example.Options{Backend: spec, Epochs: 3, Train: 1500, Test: 500, Verbose: keras.Silent, Seed: 1})
		if err != nil {
			return err
		}
		t.Logf("%s: test accuracy %.3f", spec, acc)
		if acc < 0.8 {
			t.Errorf("test accuracy %.3f, want at least 0.8", acc)
		}
		return nil
	})
}
