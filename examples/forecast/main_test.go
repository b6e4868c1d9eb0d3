package main

import (
	"context"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
)

// The forecaster learns on every engine: after 6 epochs on 2,000 windows
// its test MSE is under a third of the persistence baseline's.
func TestForecastLearns(t *testing.T) {
	for _, spec := range backendtest.Engines() {
		t.Run(spec, func(t *testing.T) {
			r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 6, Train: 2000, Test: 300, Verbose: keras.Silent, Seed: 1})
			if err != nil {
				if strings.Contains(err.Error(), "built without") {
					t.Skip(err)
				}
				t.Fatal(err)
			}
			t.Logf("%s: test MSE %.4f, persistence %.4f, mean %.4f", spec, r.mse, r.persistence, r.mean)
			if r.mse > r.persistence/3 {
				t.Errorf("test MSE %.4f is not under a third of persistence's %.4f", r.mse, r.persistence)
			}
		})
	}
}
