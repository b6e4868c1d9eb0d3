package main

import (
	"context"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
)

// The classifier learns on every engine: held-out accuracy well above
// the 0.5 of chance after 3 epochs on 1,500 reviews.
func TestSentimentLearns(t *testing.T) {
	for _, spec := range backendtest.Engines() {
		t.Run(spec, func(t *testing.T) {
			acc, err := run(context.Background(), example.Options{Backend: spec, Epochs: 3, Train: 1500, Test: 500, Verbose: keras.Silent, Seed: 1})
			if err != nil {
				if strings.Contains(err.Error(), "built without") {
					t.Skip(err)
				}
				t.Fatal(err)
			}
			t.Logf("%s: test accuracy %.3f", spec, acc)
			if acc < 0.8 {
				t.Errorf("test accuracy %.3f, want at least 0.8", acc)
			}
		})
	}
}
