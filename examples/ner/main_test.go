package main

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The NER model written as code learns on every engine (1000 sentences
// in batches padded to their own length, 4 epochs), and tags a word that
// is a person in one place and a place in another by its context
// (measured: every held-out entity token right on both engines).
func TestNERTagsEntities(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 4, Train: 1000, Test: 200, Verbose: keras.Silent, Seed: 1},
			Config{MaxLen: 32, EmbedDim: 16, NumHeads: 2, FFDim: 32})
		if err != nil {
			return err
		}
		t.Logf("%s: entity tokens %.3f, all tokens %.3f; loss by epoch %.4f; %s", spec, r.entityAccuracy, r.tokenAccuracy, r.loss, r.sample)
		if r.entityAccuracy < 0.9 {
			t.Errorf("%.3f of held-out entity tokens tagged right: want at least 0.9", r.entityAccuracy)
		}
		if want := "maria/B-PER jordan/I-PER flew/O to/O jordan/B-LOC with/O the/O olympic/B-MISC delegation/O ./O"; r.sample != want {
			t.Errorf("tagged %q, want %q", r.sample, want)
		}
		return nil
	})
}
