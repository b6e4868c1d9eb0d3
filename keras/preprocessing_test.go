package keras_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
)

// augmentedModel is the preprocessing model: rescaling,
// augmentation, resizing and an adapted Normalization in front of a
// convnet with an L2 kernel regularizer.
func augmentedModel(t *testing.T, x keras.Array) (*keras.Model, *layers.Normalization) {
	t.Helper()
	norm := &layers.Normalization{}
	m, err := keras.NewSequential(
		&layers.InputLayer{Shape: []int{8, 7, 3}},
		&layers.Rescaling{Scale: 1.0 / 255},
		&layers.RandomFlip{Mode: "horizontal"},
		&layers.RandomContrast{Factor: 0.2, ValueRange: [2]float64{0, 1}},
		&layers.RandomBrightness{Factor: 0.1, ValueRange: [2]float64{0, 1}},
		&layers.Resizing{Height: 6, Width: 6},
		norm,
		&layers.Conv2D{Filters: 4, KernelSize: [2]int{3, 3}, Activation: "relu", KernelRegularizer: regularizers.L2{L2: 0.01}},
		&layers.Flatten{},
		&layers.Dense{Units: 2, Activation: "softmax"},
	)
	if err != nil {
		t.Fatal(err)
	}
	scaled := keras.Array{Shape: x.Shape, Data: make([]float32, len(x.Data))}
	for i, v := range x.Data {
		scaled.Data[i] = v / 255
	}
	if err := keras.Adapt(context.Background(), norm, scaled); err != nil {
		t.Fatal(err)
	}
	return m, norm
}

// pixelData is n images (8, 7, 3) in [0, 255] whose class is whether the
// left half is brighter than the right (a flip changes the class: the
// model must learn through the augmentation's noise).
func pixelData(n int) (keras.Array, keras.Array) {
	x := keras.Array{Shape: []int{n, 8, 7, 3}, Data: make([]float32, n*8*7*3)}
	y := keras.Array{Shape: []int{n}, Data: make([]float32, n)}
	for i := range n {
		y.Data[i] = float32(i % 2)
		for p := range 8 * 7 * 3 {
			col := p / 3 % 7
			v := 100 + 80*math.Sin(float64(i*131+p)*0.7)
			if (col < 3) == (i%2 == 0) {
				v += 60
			}
			x.Data[i*8*7*3+p] = float32(math.Max(0, math.Min(255, v)))
		}
	}
	return x, y
}

// A model with preprocessing, augmentation and a regularizer trains on
// every engine, saves to .keras, and loads on every engine with equal
// predictions and the adapted statistics.
func TestPreprocessingModelTrainsSavesAndMovesEngines(t *testing.T) {
	x, y := pixelData(64)
	ctx := context.Background()
	var engines []string // the engines that open here
	for _, spec := range backendtest.Engines() {
		if be, err := backend.Open(spec); err == nil {
			be.Close()
			engines = append(engines, spec)
		}
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m, norm := augmentedModel(t, x)
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name(), Seed: 3}); err != nil {
			t.Fatal(err)
		}
		h, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 8, BatchSize: 16, Seed: 3, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		losses := h.Logs["loss"]
		if math.IsNaN(losses[len(losses)-1]) || losses[len(losses)-1] >= losses[0] {
			t.Fatalf("training losses %v: not decreasing", losses)
		}
		path := filepath.Join(t.TempDir(), "augmented.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		want, err := m.Predict(ctx, x, keras.PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		mean, _ := norm.Common().Weights()[0].Value()
		for _, spec := range engines {
			back, err := keras.LoadModel(path, keras.LoadOptions{Backend: spec})
			if err != nil {
				t.Fatalf("loading on %s: %v", spec, err)
			}
			got, err := back.Predict(ctx, x, keras.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range want.Data {
				if math.Abs(float64(got.Data[i]-want.Data[i])) > 1e-5 {
					t.Fatalf("loaded on %s, prediction %d is %v, before saving %v", spec, i, got.Data[i], want.Data[i])
				}
			}
			var loadedMean []float32
			for _, l := range back.Layers() {
				if n, ok := l.(*layers.Normalization); ok {
					loadedMean, _ = n.Common().Weights()[0].Value()
				}
			}
			if len(loadedMean) != len(mean) {
				t.Fatalf("loaded on %s, the Normalization's mean is %v, saved %v", spec, loadedMean, mean)
			}
			for i := range mean {
				if loadedMean[i] != mean[i] {
					t.Fatalf("loaded on %s, the Normalization's mean is %v, saved %v", spec, loadedMean, mean)
				}
			}
		}
	})
}
