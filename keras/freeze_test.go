package keras_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// Transfer learning: with the base frozen (SetTrainable(false)), Fit
// changes only the head's weights, Summary counts the base as
// non-trainable, and the frozen state survives Save/LoadModel. A single
// weight marked Trainable: false stays put too.
func TestFreezing(t *testing.T) {
	x, y := smallData(64)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		base := &layers.Dense{Units: 16, Activation: "tanh"}
		head := &layers.Dense{Units: 3, Activation: "softmax"}
		m, err := keras.NewSequential(layers.Input(6), base, head)
		if err != nil {
			t.Fatal(err)
		}
		base.SetTrainable(false)
		if err := m.Compile(keras.CompileOptions{Optimizer: "adam", Loss: "sparse_categorical_crossentropy", Backend: be.Name(), Seed: 3}); err != nil {
			t.Fatal(err)
		}
		summary, _ := m.Summary()
		for _, want := range []string{"Total params: 163 ", "Trainable params: 51 ", "Non-trainable params: 112 "} {
			if !strings.Contains(summary, want) {
				t.Errorf("Summary lacks %q:\n%s", want, summary)
			}
		}
		before, _ := m.GetWeights()
		if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 2, BatchSize: 16, Verbose: keras.Silent}); err != nil {
			t.Fatal(err)
		}
		after, _ := m.GetWeights()
		for i, name := range []string{"base kernel", "base bias", "head kernel", "head bias"} {
			moved := maxDiff(before[i], after[i]) != 0
			if moved != (i >= 2) {
				t.Errorf("%s moved: %v", name, moved)
			}
		}

		path := filepath.Join(t.TempDir(), "frozen.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		if loaded.Layers()[1].Common().Trainable() {
			t.Error("the loaded base layer is trainable again")
		}

		base.SetTrainable(true)
		_, err = m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, Verbose: keras.Silent})
		wantErr(t, err, "call Compile again")

		m2, _ := keras.NewSequential(layers.Input(6), &layers.Dense{Units: 16}, &layers.Dense{Units: 3, Activation: "softmax"})
		m2.Layers()[1].Common().Weights()[1].Trainable = false // the first bias
		if err := m2.Compile(keras.CompileOptions{Optimizer: "sgd", Loss: "sparse_categorical_crossentropy", Backend: be.Name(), Seed: 3}); err != nil {
			t.Fatal(err)
		}
		b0, _ := m2.GetWeights()
		if _, err := m2.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: 16, Verbose: keras.Silent}); err != nil {
			t.Fatal(err)
		}
		b1, _ := m2.GetWeights()
		if maxDiff(b0[1], b1[1]) != 0 || maxDiff(b0[0], b1[0]) == 0 {
			t.Errorf("Trainable: false on one weight: it moved by %g, its kernel by %g", maxDiff(b0[1], b1[1]), maxDiff(b0[0], b1[0]))
		}
	})
}
