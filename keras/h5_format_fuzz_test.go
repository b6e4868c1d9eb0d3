package keras_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kerasgo/kerasgo/internal/h5"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// legacyModelSeed is a whole model in Keras's legacy HDF5 layout, as
// model.save("x.h5") writes it: the config in the root's model_config
// attribute, a Dense layer's kernel under model_weights, and a
// training_config. It loads.
func legacyModelSeed(f *testing.F) []byte {
	root := h5.NewGroup()
	root.Attrs["model_config"] = `{"class_name": "Sequential", "config": {"name": "seed", "layers": [` +
		`{"class_name": "InputLayer", "config": {"batch_input_shape": [null, 3], "dtype": "float32", "name": "input_1"}}, ` +
		`{"class_name": "Dense", "config": {"name": "dense", "units": 2, "use_bias": false, "activation": "relu"}}]}}`
	root.Attrs["training_config"] = `{"loss": "mse", "metrics": null, "optimizer_config": {"class_name": "SGD", "config": {"learning_rate": 0.01}}}`
	root.Attrs["keras_version"] = "2.4.0"
	w := root.Group("model_weights")
	w.Attrs["layer_names"] = "dense"
	w.Group("dense").Attrs["weight_names"] = "dense/kernel:0"
	w.Group("dense/dense").Datasets["kernel:0"] = &h5.Dataset{Shape: []int{3, 2}, DType: h5.Float32, Float32: []float32{1, 2, 3, 4, 5, 6}}
	var buf bytes.Buffer
	if _, err := h5.Write(&buf, root); err != nil {
		f.Fatal(err)
	}
	p := filepath.Join(f.TempDir(), "seed.h5")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		f.Fatal(err)
	}
	if _, err := keras.LoadModel(p, keras.LoadOptions{}); err != nil {
		f.Fatalf("the seed does not load: %v", err)
	}
	return buf.Bytes()
}

// FuzzLoadModelH5: arbitrary bytes as a legacy .h5 model give an error or
// a model, never a panic; LoadWeights of the same bytes into a built
// model likewise. The HDF5 reader's own limits (FuzzOpen in
// internal/h5) bound the memory and time.
func FuzzLoadModelH5(f *testing.F) {
	seed := legacyModelSeed(f)
	f.Add(seed)
	f.Add(seed[:len(seed)/2])
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "fuzz.h5")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if m, err := keras.LoadModel(p, keras.LoadOptions{}); err == nil {
			m.Close()
		}
		in := layers.Input(3)
		m, err := keras.NewModel(in, layers.Apply(layers.Named("dense", &layers.Dense{Units: 2, NoBias: true}), in))
		if err != nil {
			t.Fatal(err)
		}
		m.LoadWeights(p)
		m.Close()
	})
}
