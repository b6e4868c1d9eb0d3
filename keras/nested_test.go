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

// baseModel is a small "pretrained" feature extractor, used as a layer.
func baseModel(t *testing.T) *keras.Model {
	t.Helper()
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 8, Activation: "relu"}, &layers.BatchNormalization{})
	if err != nil {
		t.Fatal(err)
	}
	m.Name = "base"
	return m
}

// A model used as a layer of another (Keras's nested models): its weights
// belong to the outer model, Summary shows it as one row, freezing it
// freezes all its layers (BatchNormalization then runs in inference
// mode), and the outer model saves and loads with Keras's nested layout.
func TestNestedModel(t *testing.T) {
	x, y := smallData(64)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		base := baseModel(t)
		in := layers.Input(6)
		out := layers.Apply(&layers.Dense{Units: 3, Activation: "softmax"}, layers.Apply(base, in))
		m, err := keras.NewModel(in, out)
		if err != nil {
			t.Fatal(err)
		}
		// Dense 6*8+8 = 56, BatchNormalization 4*8 = 32 (16 not trainable), head 8*3+3 = 27.
		if n := m.CountParams(); n != 56+32+27 {
			t.Errorf("CountParams = %d, want 115", n)
		}
		s, err := m.Summary()
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"base (Sequential)", "88", "Total params: 115 ", "Non-trainable params: 16 "} {
			if !strings.Contains(s, want) {
				t.Errorf("Summary lacks %q:\n%s", want, s)
			}
		}
		compile := func() {
			if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name(), Seed: 4}); err != nil {
				t.Fatal(err)
			}
		}
		compile()
		if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 2, BatchSize: 16, Verbose: keras.Silent}); err != nil {
			t.Fatal(err)
		}
		trained, _ := m.GetWeights()

		// Transfer learning: freeze the base, train the head only.
		base.SetTrainable(false)
		compile()
		if s, _ := m.Summary(); !strings.Contains(s, "Trainable params: 27 ") {
			t.Errorf("with the base frozen, Summary should count 27 trainable params:\n%s", s)
		}
		if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 2, BatchSize: 16, Verbose: keras.Silent}); err != nil {
			t.Fatal(err)
		}
		after, _ := m.GetWeights()
		for i := range after {
			moved := maxDiff(trained[i], after[i]) > 0
			if head := i >= 6; moved != head {
				t.Errorf("weight %d: moved=%v with the base frozen (only the head's weights 6 and 7 should move)", i, moved)
			}
		}

		path := filepath.Join(t.TempDir(), "nested.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		files := unzip(t, path)
		tree := strings.Join(h5Tree(t, files["model.weights.h5"]), "\n")
		for _, want := range []string{"layers/sequential/layers/dense/vars/0", "layers/sequential/layers/batch_normalization/vars/3", "layers/dense/vars/1"} {
			if !strings.Contains(tree, want) {
				t.Errorf("the weights file lacks %s:\n%s", want, tree)
			}
		}
		if !strings.Contains(string(files["config.json"]), `"class_name": "Sequential"`) && !strings.Contains(string(files["config.json"]), `"class_name":"Sequential"`) {
			t.Errorf("config.json does not hold the nested Sequential:\n%s", files["config.json"])
		}
		loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		p1, _ := m.Predict(context.Background(), x, keras.PredictOptions{})
		p2, err := loaded.Predict(context.Background(), x, keras.PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(p1.Data, p2.Data); d > 1e-6 {
			t.Errorf("the loaded nested model predicts differently by %g", d)
		}
	})
}

// One model applied to two inputs (a siamese network) shares its weights.
func TestNestedModelShared(t *testing.T) {
	base := baseModel(t)
	a, b := layers.NamedInput("a", 6), layers.NamedInput("b", 6)
	diff := layers.Apply(&layers.Subtract{}, layers.Apply(base, a), layers.Apply(base, b))
	m, err := keras.NewFunctional([]*layers.KerasTensor{a, b}, []*layers.KerasTensor{layers.Apply(&layers.Dense{Units: 1}, diff)})
	if err != nil {
		t.Fatal(err)
	}
	if n := m.CountParams(); n != 88+9 {
		t.Errorf("CountParams = %d, want 97 (the base counted once)", n)
	}
	if err := layers.Apply(base, layers.Input(5)).Err(); err == nil || !strings.Contains(err.Error(), "expected shape (None, 6)") {
		t.Errorf("a nested model on the wrong shape: %v", err)
	}
}
