package keras_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

type pyTensor struct {
	Shape  []int     `json:"shape"`
	DType  string    `json:"dtype"`
	Values []float64 `json:"values"`
}

// inspect runs scripts/inspect-saved.py (Python's h5py, or PyTorch for
// .safetensors) on a saved file.
func inspect(t *testing.T, path, module string) map[string]pyTensor {
	t.Helper()
	py := "/usr/bin/python3" // Debian's, which sees python3-h5py and python3-torch
	if err := exec.Command(py, "-c", "import "+module).Run(); err != nil {
		t.Skipf("%s is not importable by %s (apt-get install python3-%s); .ci/run installs it", module, py, module)
	}
	out, err := exec.Command(py, "../scripts/inspect-saved.py", path).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("inspect-saved.py %s: %v\n%s", path, err, stderr)
	}
	var r struct {
		Tensors map[string]pyTensor `json:"tensors"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	return r.Tensors
}

// Python reads what kerasgo saves: h5py opens the weights inside a .keras
// file, PyTorch loads the .safetensors tensors, with Keras's names,
// shapes and the exact values.
func TestPythonReadsSavedFiles(t *testing.T) {
	m := smallMLP(t, false)
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Seed: 3}); err != nil {
		t.Fatal(err)
	}
	x, y := smallData(32)
	if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 1, BatchSize: 8}); err != nil {
		t.Fatal(err)
	}
	weights, err := m.GetWeights()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float32{
		"layers/dense/vars/0": weights[0], "layers/dense/vars/1": weights[1],
		"layers/dense_1/vars/0": weights[2], "layers/dense_1/vars/1": weights[3],
	}
	shapes := map[string][]int{"layers/dense/vars/0": {6, 16}, "layers/dense/vars/1": {16}, "layers/dense_1/vars/0": {16, 3}, "layers/dense_1/vars/1": {3}}
	check := func(t *testing.T, got map[string]pyTensor, extra int) {
		for name, vals := range want {
			g, ok := got[name]
			if !ok {
				t.Errorf("Python does not see %s (it sees %d tensors)", name, len(got))
				continue
			}
			if g.DType != "float32" || !backend.Shape(g.Shape).Equal(shapes[name]) {
				t.Errorf("%s: Python sees %s %v, want float32 %v", name, g.DType, g.Shape, shapes[name])
			}
			for i, v := range vals {
				if i >= len(g.Values) || float32(g.Values[i]) != v {
					t.Errorf("%s: value %d differs", name, i)
					break
				}
			}
		}
		if len(got) != len(want)+extra {
			t.Errorf("Python sees %d tensors, want %d", len(got), len(want)+extra)
		}
	}
	t.Run("keras/h5py", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "m.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		got := inspect(t, path, "h5py")
		check(t, got, 2+2*4) // iterations, learning rate, Adam's two slots per weight
		if it := got["optimizer/vars/0"]; it.DType != "int64" || len(it.Shape) != 0 || it.Values[0] != 4 {
			t.Errorf("optimizer/vars/0 (iterations) = %+v, want int64 scalar 4", it)
		}
	})
	t.Run("safetensors/torch", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "m.safetensors")
		if err := m.SaveWeights(path); err != nil {
			t.Fatal(err)
		}
		check(t, inspect(t, path, "torch"), 0)
	})
}
