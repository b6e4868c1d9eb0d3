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

// smallResNet is a residual block: Conv2D + BatchNormalization, added to
// its input, then global average pooling and a classifier.
func smallResNet(t *testing.T) *keras.Model {
	t.Helper()
	in := layers.Input(6, 6, 4)
	x := layers.Apply(&layers.Conv2D{Filters: 4, KernelSize: [2]int{3, 3}, Padding: "same"}, in)
	x = layers.Apply(&layers.BatchNormalization{}, x)
	x = layers.Apply(&layers.Activation{Fn: "relu"}, x)
	x = layers.Apply(&layers.Add{}, x, in)
	x = layers.Apply(&layers.GlobalAveragePooling2D{}, x)
	out := layers.Apply(&layers.Dense{Units: 3, Activation: "softmax"}, x)
	m, err := keras.NewModel(in, out)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A residual model: Keras's parameter counts (Conv2D 3*3*4*4+4 = 148,
// BatchNormalization 16 of which 8 non-trainable, Dense 4*3+3 = 15),
// training on every engine, and a save/load round trip of the graph with
// its two-input Add.
func TestResidualBlock(t *testing.T) {
	x := keras.Array{Shape: []int{16, 6, 6, 4}, Data: make([]float32, 16*144)}
	for i := range x.Data {
		x.Data[i] = float32((i*37)%17)/17 - 0.5
	}
	y := keras.Array{Shape: []int{16}, Data: make([]float32, 16)}
	for i := range y.Data {
		y.Data[i] = float32(i % 3)
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := smallResNet(t)
		summary, err := m.Summary()
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Total params: 179 ", "Trainable params: 171 ", "Non-trainable params: 8 "} {
			if !strings.Contains(summary, want) {
				t.Errorf("Summary lacks %q:\n%s", want, summary)
			}
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy"), Backend: be.Name(), Seed: 2}); err != nil {
			t.Fatal(err)
		}
		h, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 3, BatchSize: 8, Seed: 1, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		if l := h.Logs["loss"]; !(l[2] < l[0]) {
			t.Errorf("loss did not fall: %v", l)
		}
		path := filepath.Join(t.TempDir(), "resnet.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
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
			t.Errorf("the loaded residual model predicts differently by %g", d)
		}
	})
}
