package main

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The encoder-decoder learns on every engine (2000 words, 20 epochs),
// and the inference loop, through the encoder and one-step decoder models
// that share its layers, reverses held-out words (the page shows French
// translations; there is no number to compare).
func TestSeq2SeqReverses(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 20, Train: 2000, Test: 100, Verbose: keras.Silent, Seed: 1}, 48)
		if err != nil {
			return err
		}
		t.Logf("%s: %.2f of held-out words reversed exactly; loss by epoch %.4f; %q", spec, r.exact, r.loss, r.samples)
		if r.exact < 0.5 {
			t.Errorf("%.2f of held-out words reversed exactly: want at least half", r.exact)
		}
		return nil
	})
}
