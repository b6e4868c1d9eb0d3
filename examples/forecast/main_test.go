package main

import (
	"context"
	"testing"

	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
)

// The forecaster learns on every engine: after 6 epochs on 2,000 windows
// its test MSE is under a third of the persistence baseline's.
func TestForecastLearns(t *testing.T) {
	example.EachEngine(t, func(t *testing.T, spec string) error {
		r, err := run(context.Background(), example.Options{Backend: spec, Epochs: 6, Train: 2000, Test: 300, Verbose: keras.Silent, Seed: 1})
		if err != nil {
			return err
		}
		t.Logf("%s: test MSE %.4f, persistence %.4f, mean %.4f", spec, r.mse, r.persistence, r.mean)
		if r.mse > r.persistence/3 {
			t.Errorf("test MSE %.4f is not under a third of persistence's %.4f", r.mse, r.persistence)
		}
		return nil
	})
}
