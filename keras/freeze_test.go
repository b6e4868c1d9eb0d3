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
	"github.com/kerasgo/kerasgo/keras/optimizers"
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
		m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, base, head)
		if err != nil {
			t.Fatal(err)
		}
		base.SetTrainable(false)
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name(), Seed: 3}); err != nil {
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

		m2, _ := keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 16}, &layers.Dense{Units: 3, Activation: "softmax"})
		m2.Layers()[1].Common().Weights()[1].Trainable = false // the first bias
		if err := m2.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name(), Seed: 3}); err != nil {
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

// A model with BatchNormalization saves its moving statistics and Keras's
// optimizer variables (iterations, learning rate, two Adam slots for each
// of the 8 trainable weights: 18, as in the SAHeart fixture), loads, and
// continues training exactly.
func TestBatchNormalizationSaveLoad(t *testing.T) {
	x, y := smallData(64)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		build := func() *keras.Model {
			m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 16, Activation: "relu"}, &layers.BatchNormalization{},
				&layers.Dense{Units: 8, Activation: "relu"}, &layers.Dense{Units: 3, Activation: "softmax"})
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		m := build()
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name(), Seed: 4}); err != nil {
			t.Fatal(err)
		}
		fit := keras.FitOptions{Epochs: 2, BatchSize: 16, NoShuffle: true, Verbose: keras.Silent}
		if _, err := m.Fit(context.Background(), x, y, fit); err != nil {
			t.Fatal(err)
		}
		w, _ := m.GetWeights()
		if w[4][0] == 0 && w[5][0] == 1 {
			t.Error("the moving statistics did not move in training")
		}
		path := filepath.Join(t.TempDir(), "bn.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		optVars := 0
		for _, p := range h5Tree(t, unzip(t, path)["model.weights.h5"]) {
			if strings.HasPrefix(p, "optimizer/vars/") && !strings.HasSuffix(p, "/") {
				optVars++
			}
		}
		if optVars != 2+2*8 {
			t.Errorf("%d optimizer variables, Keras has %d", optVars, 2+2*8)
		}
		loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		p1, _ := m.Predict(context.Background(), x, keras.PredictOptions{})
		p2, _ := loaded.Predict(context.Background(), x, keras.PredictOptions{})
		if d := maxDiff(p1.Data, p2.Data); d > 1e-6 {
			t.Errorf("predictions differ by %g after loading", d)
		}
		h1, _ := m.Fit(context.Background(), x, y, fit)
		h2, err := loaded.Fit(context.Background(), x, y, fit)
		if err != nil {
			t.Fatal(err)
		}
		for e := range h1.Logs["loss"] {
			if d := h1.Logs["loss"][e] - h2.Logs["loss"][e]; d > 1e-5 || d < -1e-5 {
				t.Errorf("epoch %d after loading: loss %.7f, uninterrupted %.7f", e, h2.Logs["loss"][e], h1.Logs["loss"][e])
			}
		}
	})
}
