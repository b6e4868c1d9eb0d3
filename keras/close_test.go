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

// Close releases the engine, keeps the weights, and leaves the model
// usable: Predict reopens the engine with the same answer; training needs
// Compile again.
func TestCloseKeepsTheWeights(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, &layers.Dense{Units: 2}))
		keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Backend: be.Name(), Seed: 1}))
		x := keras.Must(keras.NewArray([]float32{1, 2, 3, -1, 0, 1}, 2, 3))
		y := keras.Must(keras.NewArray([]float32{1, 0, 0, 1}, 2, 2))
		keras.Must(m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 2, Verbose: keras.Silent}))
		before := keras.Must(m.Predict(context.Background(), x, keras.PredictOptions{}))
		keras.MustOK(m.Close())
		keras.MustOK(m.Close()) // twice is fine
		after := keras.Must(m.Predict(context.Background(), x, keras.PredictOptions{}))
		for i := range before.Data {
			if before.Data[i] != after.Data[i] {
				t.Fatalf("after Close, Predict gives %v, want %v", after.Data, before.Data)
			}
		}
		if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent}); err == nil || !strings.Contains(err.Error(), "Compile") {
			t.Fatalf("Fit after Close: %v, want an error saying to Compile", err)
		}
	})
}

// LoadModel with NoCompile predicts on the engine LoadOptions.Backend
// names, and an unknown engine is an error of the load.
func TestLoadNoCompileOnAnEngine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.keras")
	m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, &layers.Dense{Units: 2}))
	keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 1}))
	keras.MustOK(m.Save(path))
	if _, err := keras.LoadModel(path, keras.LoadOptions{NoCompile: true, Backend: "nosuchengine"}); err == nil || !strings.Contains(err.Error(), "nosuchengine") {
		t.Fatalf("LoadModel on an unknown engine: %v, want an error naming it", err)
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		l, err := keras.LoadModel(path, keras.LoadOptions{NoCompile: true, Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		x := keras.Must(keras.NewArray([]float32{1, 2, 3}, 1, 3))
		want := keras.Must(m.Predict(context.Background(), x, keras.PredictOptions{}))
		got := keras.Must(l.Predict(context.Background(), x, keras.PredictOptions{}))
		for i := range want.Data {
			if d := want.Data[i] - got.Data[i]; d > 1e-6 || d < -1e-6 {
				t.Fatalf("loaded on %s: %v, want %v", be.Name(), got.Data, want.Data)
			}
		}
	})
}
