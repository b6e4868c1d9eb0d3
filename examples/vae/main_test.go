package main

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The VAE trains on every engine with its KL term added by a layer: the
// held-out reconstruction loss falls well below the untrained model's.
func TestVAELearns(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 3, Train: 2048, Test: 256, Verbose: keras.Silent, Seed: 1}, 8)
		if err != nil {
			return err
		}
		t.Logf("%s: held-out reconstruction %.2f -> %.2f; training loss by epoch %v", spec, r.before, r.after, r.loss)
		if r.after > 0.8*r.before {
			t.Errorf("held-out reconstruction loss %.2f after training, %.2f before: want it to fall by at least 20%%", r.after, r.before)
		}
		return nil
	})
}
