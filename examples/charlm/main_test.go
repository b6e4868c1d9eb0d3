package main

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The character model learns on every engine from windows of three
// lengths (600 sentences, 3 epochs, 48 units), and the one-step model
// that shares its layers writes 200 characters, one compiled step for
// all of them, mostly in the grammar's words.
func TestCharLMWritesWords(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 3, Train: 600, Test: 60, Verbose: keras.Silent, Seed: 1}, 48, 200)
		if err != nil {
			return err
		}
		t.Logf("%s: next-character accuracy %.3f, %.2f of generated words known; loss by epoch %.4f; %q", spec, r.accuracy, r.words, r.loss, r.sample)
		if r.accuracy < 0.6 {
			t.Errorf("held-out next-character accuracy %.3f: want at least 0.6 (chance is 1 in %d)", r.accuracy, len(chars))
		}
		if r.words < 0.7 {
			t.Errorf("%.2f of generated words are the grammar's: want at least 0.7", r.words)
		}
		if n := len(r.sample); n != 200 {
			t.Errorf("generated %d characters, asked for 200", n)
		}
		return nil
	})
}
