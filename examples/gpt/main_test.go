package main

import (
	"context"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The miniature GPT learns the grammar on every engine (512 sequences
// of 16 tokens, 8 epochs): held-out next-token accuracy nears the
// grammar's ceiling (about 0.29: only the full stop after a sentence's
// last noun is certain), and the sampling loop writes text whose word
// pairs the grammar allows (the page prints a generated IMDB review;
// there is no number to compare).
func TestGPTLearnsTheGrammar(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 8, Train: 512, Test: 64, Verbose: keras.Silent, Seed: 1},
			Config{MaxLen: 16, EmbedDim: 32, NumHeads: 2, FFDim: 32})
		if err != nil {
			return err
		}
		t.Logf("%s: held-out next-token accuracy %.3f; loss by epoch %.4f; generated (%.2f grammatical) %q", spec, r.accuracy, r.loss, r.grammatical, r.text)
		if r.accuracy < 0.24 {
			t.Errorf("next-token accuracy %.3f: want above 0.24 (the most frequent token is 0.15)", r.accuracy)
		}
		if r.grammatical < 0.9 || !strings.Contains(r.text, ".") {
			t.Errorf("generated text %q: %.2f of its word pairs grammatical, want 0.9 and a full stop", r.text, r.grammatical)
		}
		return nil
	})
}
