package keras_test

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// crossEngineModel is a small convnet without dropout (whose masks come
// from each engine's own generator), so two engines can agree exactly.
func crossEngineModel(t *testing.T) *keras.Model {
	t.Helper()
	m, err := keras.NewSequential(
		&layers.InputLayer{Shape: []int{8, 8, 1}},
		&layers.Conv2D{Filters: 4, KernelSize: [2]int{3, 3}, Activation: "relu"},
		&layers.MaxPooling2D{},
		&layers.Flatten{},
		&layers.Dense{Units: 16, Activation: "tanh"},
		&layers.Dense{Units: 3, Activation: "softmax"},
	)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// twoEngines returns the engines that open here, skipping the test unless
// there are at least two. make test's libtorch pass runs the tests that
// call it with both engines (CROSS_ENGINE_TESTS in the Makefile: name a
// new one so that it matches).
func twoEngines(t *testing.T) []string {
	t.Helper()
	var engines []string
	for _, spec := range backendtest.Engines() {
		if be, err := backend.Open(spec); err == nil {
			be.Close()
			engines = append(engines, spec)
		}
	}
	if len(engines) < 2 {
		t.Skipf("needs two engines, have %v (build with the libtorch engine: make test does when libtorch is installed)", engines)
	}
	return engines
}

// TestCrossEngine compiles one model with the same weights on every engine
// available: predictions agree within 1e-5, and after 100 SGD steps on the
// same batches the losses agree within 1e-3.
func TestCrossEngine(t *testing.T) {
	engines := twoEngines(t)
	x, _ := blobs(64, 3, 11)
	img := keras.Array{Shape: []int{64, 8, 8, 1}, Data: make([]float32, 64*64)}
	for i := range img.Data { // deterministic images derived from the blobs
		img.Data[i] = float32(math.Sin(float64(i)*0.37)) * x.Data[i%len(x.Data)]
	}
	_, y := blobs(64, 3, 11)
	ctx := context.Background()
	var weights [][]float32
	var preds [][]float32
	var losses [][]float64
	for i, spec := range engines {
		m := crossEngineModel(t)
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{LearningRate: 0.05}, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: spec, Seed: 4}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			w, err := m.GetWeights()
			if err != nil {
				t.Fatal(err)
			}
			weights = w
		} else if err := m.SetWeights(weights); err != nil {
			t.Fatal(err)
		}
		p, err := m.Predict(ctx, img, keras.PredictOptions{BatchSize: 16})
		if err != nil {
			t.Fatal(err)
		}
		preds = append(preds, p.Data)
		h, err := m.Fit(ctx, img, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 25, BatchSize: 16, NoShuffle: true})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		losses = append(losses, h.Logs["loss"]) // 25 epochs x 4 batches = 100 steps
	}
	for i := 1; i < len(engines); i++ {
		for j := range preds[0] {
			if d := math.Abs(float64(preds[i][j] - preds[0][j])); d > 1e-5 {
				t.Fatalf("prediction %d: %s %v, %s %v (|diff| %.2g > 1e-5)", j, engines[0], preds[0][j], engines[i], preds[i][j], d)
			}
		}
		for e := range losses[0] {
			if d := math.Abs(losses[i][e] - losses[0][e]); d > 1e-3 {
				t.Fatalf("epoch %d loss: %s %v, %s %v (|diff| %.2g > 1e-3)", e+1, engines[0], losses[0][e], engines[i], losses[i][e], d)
			}
		}
		t.Logf("%s vs %s: final loss %.6f vs %.6f after 100 steps", engines[0], engines[i], losses[0][len(losses[0])-1], losses[i][len(losses[i])-1])
	}
}

// A model trained on one engine, saved and loaded on another predicts the
// same within 1e-5, and continues training from the same optimizer state
// (losses within 1e-4 over the next epoch), in every direction.
func TestCrossEngineSaveLoad(t *testing.T) {
	engines := twoEngines(t)
	x, _ := blobs(64, 3, 11)
	img := keras.Array{Shape: []int{64, 8, 8, 1}, Data: make([]float32, 64*64)}
	for i := range img.Data {
		img.Data[i] = float32(math.Sin(float64(i)*0.37)) * x.Data[i%len(x.Data)]
	}
	_, y := blobs(64, 3, 11)
	ctx := context.Background()
	fit := keras.FitOptions{Verbose: keras.Silent, Epochs: 1, BatchSize: 16, NoShuffle: true}
	for _, from := range engines {
		for _, to := range engines {
			if from == to {
				continue
			}
			t.Run(from+"->"+to, func(t *testing.T) {
				m := crossEngineModel(t)
				if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: from, Seed: 9}); err != nil {
					t.Fatal(err)
				}
				if _, err := m.Fit(ctx, img, y, fit); err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(t.TempDir(), "m.keras")
				if err := m.Save(path); err != nil {
					t.Fatal(err)
				}
				loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: to})
				if err != nil {
					t.Fatal(err)
				}
				if got := loaded.Backend().Name(); !strings.HasPrefix(to, got) {
					t.Fatalf("loaded on %s, want %s", got, to)
				}
				p1, err := m.Predict(ctx, img, keras.PredictOptions{})
				if err != nil {
					t.Fatal(err)
				}
				p2, err := loaded.Predict(ctx, img, keras.PredictOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if d := maxDiff(p1.Data, p2.Data); d > 1e-5 {
					t.Errorf("predictions differ by %g after moving from %s to %s", d, from, to)
				}
				h1, err := m.Fit(ctx, img, y, fit)
				if err != nil {
					t.Fatal(err)
				}
				h2, err := loaded.Fit(ctx, img, y, fit)
				if err != nil {
					t.Fatal(err)
				}
				if d := math.Abs(h1.Logs["loss"][0] - h2.Logs["loss"][0]); d > 1e-4 {
					t.Errorf("next epoch's loss: %.6f on %s, %.6f on %s after loading", h1.Logs["loss"][0], from, h2.Logs["loss"][0], to)
				}
			})
		}
	}
}
