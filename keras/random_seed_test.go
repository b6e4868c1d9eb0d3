package keras_test

import (
	"context"
	"slices"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
)

// After SetRandomSeed, models compiled and trained without seeds start
// from the same weights and train to the same weights on every run (two
// runs here, each from the same call), on every engine.
func TestSetRandomSeedRepeatsRuns(t *testing.T) {
	x, y := smallData(48)
	defer keras.UnsetRandomSeed()
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		run := func() ([]float32, []float32) {
			keras.SetRandomSeed(42)
			m := smallMLP(t, false)
			if err := m.Compile(keras.CompileOptions{Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name()}); err != nil {
				t.Fatal(err)
			}
			first, _ := m.GetWeights()
			if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 2, BatchSize: 16}); err != nil {
				t.Fatal(err)
			}
			last, _ := m.GetWeights()
			return first[0], last[0]
		}
		a0, a1 := run()
		b0, b1 := run()
		if !slices.Equal(a0, b0) || !slices.Equal(a1, b1) {
			t.Error("two runs after SetRandomSeed(42) differ")
		}
		keras.SetRandomSeed(43)
		m := smallMLP(t, false)
		if err := m.Compile(keras.CompileOptions{Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name()}); err != nil {
			t.Fatal(err)
		}
		c0, _ := m.GetWeights()
		if slices.Equal(c0[0], a0) {
			t.Error("another seed gave the same initial weights")
		}
	})
}
