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

// A model over sequences of any length (Keras's Input((None, 3))): it
// predicts and trains on data of different lengths, each step compiled
// for its shape, saves its input as (None, None, 3) and loads again; a
// layer that needs the length is refused naming it.
func TestUnknownLengths(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		in := layers.Input(-1, 3)
		seq := layers.Apply(&layers.LSTM{Units: 4, ReturnSequences: true}, in)
		out := layers.Apply(&layers.Dense{Units: 2}, seq)
		m, err := keras.NewFunctional([]*layers.KerasTensor{in}, []*layers.KerasTensor{out})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("mse"), Backend: be.Name(), Seed: 1}); err != nil {
			t.Fatal(err)
		}
		for _, steps := range []int{5, 7} {
			x := backendtest.Random(uint64(steps), -1, 1, 4, steps, 3)
			xa := keras.Must(keras.NewArray(toFloat32(x.Data), 4, steps, 3))
			y := keras.Must(keras.NewArray(make([]float32, 4*steps*2), 4, steps, 2))
			if _, err := m.Fit(context.Background(), xa, y, keras.FitOptions{Epochs: 1, BatchSize: 2, Verbose: keras.Silent}); err != nil {
				t.Fatalf("%d steps: %v", steps, err)
			}
			p, err := m.Predict(context.Background(), xa, keras.PredictOptions{})
			if err != nil {
				t.Fatalf("%d steps: %v", steps, err)
			}
			if !backend.Shape(p.Shape).Equal(backend.Shape{4, steps, 2}) {
				t.Fatalf("%d steps: prediction of shape %v", steps, p.Shape)
			}
		}
		path := filepath.Join(t.TempDir(), "any_length.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		if s := back.Inputs()[0].Shape(); !s.Equal(backend.Shape{-1, -1, 3}) {
			t.Errorf("loaded input shape %v, want (None, None, 3)", s)
		}
	})
	flat := layers.Apply(&layers.Flatten{}, layers.Input(-1, 3))
	if err := flat.Err(); err == nil || !strings.Contains(err.Error(), `"flatten"`) && !strings.Contains(err.Error(), "Flatten") || !strings.Contains(err.Error(), "unknown length") {
		t.Errorf("Flatten over a sequence of any length: error %v, want one naming the layer and the unknown length", err)
	}
}
