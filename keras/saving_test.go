package keras_test

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/internal/h5"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// fixtureCNN is the architecture of the Keras fixture
// Aman-21k__cnn-fashion-mnist-classifier.keras, written in kerasgo.
func fixtureCNN(t *testing.T) *keras.Model {
	t.Helper()
	m, err := keras.NewSequential(
		&layers.InputLayer{Shape: []int{28, 28, 1}},
		&layers.Conv2D{Filters: 32, KernelSize: [2]int{3, 3}, Activation: "relu"},
		&layers.MaxPooling2D{PoolSize: [2]int{2, 2}},
		&layers.Conv2D{Filters: 64, KernelSize: [2]int{3, 3}, Activation: "relu"},
		&layers.MaxPooling2D{PoolSize: [2]int{2, 2}},
		&layers.Flatten{},
		&layers.Dropout{Rate: 0.5},
		&layers.Dense{Units: 64, Activation: "relu"},
		&layers.Dense{Units: 10, Activation: "softmax"},
	)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// unzip returns the entries of a .keras file.
func unzip(t *testing.T, path string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name], err = io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// h5Tree lists every group and dataset of an HDF5 file with the
// datasets' shapes and dtypes.
func h5Tree(t *testing.T, data []byte) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "w.h5")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := h5.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	var walk func(prefix string)
	walk = func(prefix string) {
		for _, c := range f.Children(prefix) {
			p := strings.TrimPrefix(prefix+"/"+c, "/")
			if d := f.Dataset(p); d != nil {
				out = append(out, fmt.Sprintf("%s %v %v", p, d.Shape, d.DType))
			} else {
				out = append(out, p+"/")
				walk(p)
			}
		}
	}
	walk("")
	sort.Strings(out)
	return out
}

// jsonKeys describes the structure of a JSON document: every path of
// object keys, with list elements merged, ignoring Keras's internal
// shared_object_id.
func jsonKeys(v any, prefix string, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if k == "shared_object_id" {
				continue
			}
			out[prefix+"."+k] = true
			jsonKeys(c, prefix+"."+k, out)
		}
	case []any:
		for _, c := range x {
			jsonKeys(c, prefix+"[]", out)
		}
	}
}

func structure(t *testing.T, data []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	jsonKeys(v, "", keys)
	var out []string
	for k := range keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func diff(a, b []string) (onlyA, onlyB []string) {
	inA, inB := map[string]bool{}, map[string]bool{}
	for _, s := range a {
		inA[s] = true
	}
	for _, s := range b {
		inB[s] = true
	}
	for _, s := range a {
		if !inB[s] {
			onlyA = append(onlyA, s)
		}
	}
	for _, s := range b {
		if !inA[s] {
			onlyB = append(onlyB, s)
		}
	}
	return
}

// A kerasgo model saved with Save has the HDF5 tree (groups, datasets,
// shapes, dtypes) and the config.json structure of the Keras file of the
// same architecture.
func TestSaveMatchesKerasLayout(t *testing.T) {
	ref := unzip(t, fixture(t, "Aman-21k__cnn-fashion-mnist-classifier.keras"))
	m := fixtureCNN(t)
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy")}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cnn.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	got := unzip(t, path)
	for _, name := range []string{"metadata.json", "config.json", "model.weights.h5"} {
		if got[name] == nil {
			t.Fatalf("the archive has no %s", name)
		}
	}
	if a, b := diff(h5Tree(t, got["model.weights.h5"]), h5Tree(t, ref["model.weights.h5"])); len(a)+len(b) > 0 {
		t.Errorf("HDF5 trees differ:\n only kerasgo: %v\n only Keras: %v", a, b)
	}
	if a, b := diff(structure(t, got["config.json"]), structure(t, ref["config.json"])); len(a)+len(b) > 0 {
		t.Errorf("config.json structures differ:\n only kerasgo: %v\n only Keras: %v", a, b)
	}
	var meta map[string]any
	if err := json.Unmarshal(got["metadata.json"], &meta); err != nil || meta["keras_version"] == nil || meta["date_saved"] == nil || meta["kerasgo_version"] != keras.Version {
		t.Errorf("metadata.json = %s (%v)", got["metadata.json"], err)
	}
}

// smallData is a deterministic classification task.
func smallData(n int) (keras.Array, keras.Array) {
	x := keras.Array{Shape: []int{n, 6}, Data: make([]float32, n*6)}
	y := keras.Array{Shape: []int{n}, Data: make([]float32, n)}
	for i := 0; i < n; i++ {
		s := 0.0
		for j := 0; j < 6; j++ {
			v := math.Sin(float64(i*7+j*3)) * 2
			x.Data[i*6+j] = float32(v)
			s += v * float64(j-2)
		}
		y.Data[i] = float32(int(math.Abs(s)) % 3)
	}
	return x, y
}

func smallMLP(t *testing.T, functional bool) *keras.Model {
	t.Helper()
	if functional {
		in := layers.Input(6)
		h := layers.Apply(&layers.Dense{Units: 16, Activation: "tanh"}, in)
		out := layers.Apply(&layers.Dense{Units: 3, Activation: "softmax"}, h)
		m, err := keras.NewModel(in, out)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 16, Activation: "tanh"}, &layers.Dense{Units: 3, Activation: "softmax"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func maxDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

// Save mid-training, load, continue: the next epochs' losses equal an
// uninterrupted run's (same engine, fixed seed, no shuffling, no
// dropout), for every optimizer and for Sequential and functional
// models, because the optimizer's state and iteration count are saved.
func TestSaveLoadContinuesTraining(t *testing.T) {
	ctx := context.Background()
	x, y := smallData(96)
	fit := keras.FitOptions{Verbose: keras.Silent, Epochs: 2, BatchSize: 16, NoShuffle: true}
	for _, opt := range []string{"adam", "sgd", "rmsprop", "adadelta"} {
		for _, functional := range []bool{false, true} {
			name := fmt.Sprintf("%s/functional=%v", opt, functional)
			t.Run(name, func(t *testing.T) {
				backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
					o, err := optimizers.Get(opt)
					if err != nil {
						t.Fatal(err)
					}
					compile := keras.CompileOptions{Optimizer: o, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy"), Backend: be.Name(), Seed: 7}
					whole := smallMLP(t, functional)
					if err := whole.Compile(compile); err != nil {
						t.Fatal(err)
					}
					if _, err := whole.Fit(ctx, x, y, fit); err != nil {
						t.Fatal(err)
					}
					want, err := whole.Fit(ctx, x, y, fit)
					if err != nil {
						t.Fatal(err)
					}

					first := smallMLP(t, functional)
					if err := first.Compile(compile); err != nil {
						t.Fatal(err)
					}
					if _, err := first.Fit(ctx, x, y, fit); err != nil {
						t.Fatal(err)
					}
					path := filepath.Join(t.TempDir(), "mid.keras")
					if err := first.Save(path); err != nil {
						t.Fatal(err)
					}
					loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
					if err != nil {
						t.Fatal(err)
					}
					p1, err := first.Predict(ctx, x, keras.PredictOptions{})
					if err != nil {
						t.Fatal(err)
					}
					p2, err := loaded.Predict(ctx, x, keras.PredictOptions{})
					if err != nil {
						t.Fatal(err)
					}
					if d := maxDiff(p1.Data, p2.Data); d > 1e-6 {
						t.Errorf("%s: predictions of the loaded model differ by %g", name, d)
					}
					got, err := loaded.Fit(ctx, x, y, fit)
					if err != nil {
						t.Fatal(err)
					}
					for e := range want.Logs["loss"] {
						if d := math.Abs(got.Logs["loss"][e] - want.Logs["loss"][e]); d > 1e-5 {
							t.Errorf("%s: epoch %d after loading: loss %.7f, uninterrupted %.7f", name, e+3, got.Logs["loss"][e], want.Logs["loss"][e])
						}
					}
				})
			})
		}
	}
}

// SaveWeights and LoadWeights move weights between models of one
// architecture through both weights formats, and refuse another
// architecture with an error naming the layer.
func TestSaveLoadWeights(t *testing.T) {
	ctx := context.Background()
	x, y := smallData(48)
	for _, ext := range []string{".weights.h5", ".safetensors"} {
		t.Run(ext, func(t *testing.T) {
			src := smallMLP(t, false)
			if err := src.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Seed: 5}); err != nil {
				t.Fatal(err)
			}
			if _, err := src.Fit(ctx, x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 1, BatchSize: 16}); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "w"+ext)
			if err := src.SaveWeights(path); err != nil {
				t.Fatal(err)
			}
			dst := smallMLP(t, false)
			if err := dst.LoadWeights(path); err != nil {
				t.Fatal(err)
			}
			a, _ := src.GetWeights()
			b, _ := dst.GetWeights()
			for i := range a {
				if d := maxDiff(a[i], b[i]); d != 0 {
					t.Errorf("weight %d differs by %g after the round trip", i, d)
				}
			}
			other, err := keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 8}, &layers.Dense{Units: 3})
			if err != nil {
				t.Fatal(err)
			}
			wantErr(t, other.LoadWeights(path), `layer "dense" (Dense)`, "(6, 8)", "(6, 16)")
			deeper, err := keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 16}, &layers.Dense{Units: 3}, &layers.Dense{Units: 3})
			if err != nil {
				t.Fatal(err)
			}
			wantErr(t, deeper.LoadWeights(path), `layer "dense_2" (Dense)`, "no variable layers/dense_2/vars/0")
		})
	}
}

// A functional model saved by kerasgo has the config.json structure of a
// functional model Keras saved (the SAHeart fixture, without what belongs
// to its BatchNormalization layer and AUC metric, which kerasgo lacks):
// layers with name and inbound_nodes, keras_history links, input_layers
// and output_layers; and the same HDF5 tree for the layers both have.
func TestSaveFunctionalMatchesKerasLayout(t *testing.T) {
	ref := unzip(t, fixture(t, "Carine-Ashimwe__Summative-Assignment-SAHeart-Project.keras"))
	in := layers.Input(11)
	x := layers.Apply(&layers.Dense{Units: 128, Activation: "relu"}, in)
	x = layers.Apply(&layers.Dropout{Rate: 0.4}, x)
	x = layers.Apply(&layers.Dense{Units: 64, Activation: "relu"}, x)
	out := layers.Apply(&layers.Dense{Units: 1, Activation: "sigmoid"}, x)
	m, err := keras.NewModel(in, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("binary_crossentropy"), Metrics: keras.Metrics("accuracy")}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	got := unzip(t, path)
	notShared := func(s string) bool {
		for _, k := range []string{"kwargs.", "compile_config.metrics[].", ".axis", ".momentum", ".epsilon", ".center", ".scale", "beta_", "gamma_", "moving_", ".synchronized", "config.layers[].config.dtype."} {
			if strings.Contains(s, k) {
				return false
			}
		}
		return true
	}
	filter := func(in []string) (out []string) {
		for _, s := range in {
			if notShared(s) {
				out = append(out, s)
			}
		}
		return out
	}
	if a, b := diff(filter(structure(t, got["config.json"])), filter(structure(t, ref["config.json"]))); len(a)+len(b) > 0 {
		t.Errorf("config.json structures differ:\n only kerasgo: %v\n only Keras: %v", a, b)
	}
	noBN := func(in []string) (out []string) {
		for _, s := range in {
			if !strings.Contains(s, "batch_normalization") && !strings.HasPrefix(s, "optimizer/vars/") {
				out = append(out, s)
			}
		}
		return out
	}
	if a, b := diff(noBN(h5Tree(t, got["model.weights.h5"])), noBN(h5Tree(t, ref["model.weights.h5"]))); len(a)+len(b) > 0 {
		t.Errorf("HDF5 trees differ:\n only kerasgo: %v\n only Keras: %v", a, b)
	}
}
