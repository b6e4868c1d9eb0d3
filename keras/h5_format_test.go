package keras_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// writeH5Format writes, with h5py, a weights file in Keras's legacy HDF5
// layout as Keras 2 wrote it (h5py 2's fixed-length names, "kernel:0"):
// layers a (3x4 kernel and bias) and b (4x2 and bias), whose values are
// base+0, base+1, ... in each weight; under model_weights when whole.
func writeH5Format(t *testing.T, names [2]string, bShape [2]int, whole bool) string {
	t.Helper()
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import h5py").Run(); err != nil {
		t.Skip("h5py is not installed (apt-get install python3-h5py); .ci/run installs it")
	}
	path := filepath.Join(t.TempDir(), "weights.h5")
	script := `
import h5py, sys, numpy as np
a, b, rows, cols, whole = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1"
with h5py.File(sys.argv[1], "w") as f:
    g = f.create_group("model_weights") if whole else f
    if whole:
        f.attrs["model_config"] = np.bytes_("{}")
    g.attrs["keras_version"] = np.bytes_("2.4.0")
    g.attrs["backend"] = np.bytes_("tensorflow")
    g.attrs["layer_names"] = np.array([b"input_1", a.encode(), b.encode()])
    g.create_group("input_1").attrs["weight_names"] = np.array([], dtype="S1")
    for name, shape, base in ((a, (3, 4), 100), (b, (rows, cols), 200)):
        lg = g.create_group(name)
        lg.attrs["weight_names"] = np.array([(name + "/kernel:0").encode(), (name + "/bias:0").encode()])
        n = shape[0] * shape[1]
        lg.create_dataset(name + "/kernel:0", data=(base + np.arange(n, dtype="float32")).reshape(shape))
        lg.create_dataset(name + "/bias:0", data=base + 50 + np.arange(shape[1], dtype="float32"))
`
	whole1 := "0"
	if whole {
		whole1 = "1"
	}
	out, err := exec.Command(py, "-c", script, path, names[0], names[1], itoa(bShape[0]), itoa(bShape[1]), whole1).CombinedOutput()
	if err != nil {
		t.Fatalf("h5py: %v\n%s", err, out)
	}
	return path
}

func itoa(n int) string { return strconv.Itoa(n) }

// twoDense is an input of 3 features, Dense "a" of 4 and Dense "b" of 2.
func twoDense(t *testing.T) *keras.Model {
	t.Helper()
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, layers.Named("a", &layers.Dense{Units: 4}), layers.Named("b", &layers.Dense{Units: 2}))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func counting(base float32, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = base + float32(i)
	}
	return out
}

// A file in the legacy HDF5 layout, as Keras 2 and keras.applications'
// downloads have it, loads by layer order (its layer names need not be
// the model's), also from a whole-model file's model_weights.
func TestLoadWeightsH5Format(t *testing.T) {
	for _, whole := range []bool{false, true} {
		m := twoDense(t)
		if err := m.LoadWeights(writeH5Format(t, [2]string{"dense_1", "dense_2"}, [2]int{4, 2}, whole)); err != nil {
			t.Fatal(err)
		}
		got, err := m.GetWeights()
		if err != nil {
			t.Fatal(err)
		}
		want := [][]float32{counting(100, 12), counting(150, 4), counting(200, 8), counting(250, 2)}
		for i := range want {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("whole file %v: weight %d = %v, want %v", whole, i, got[i], want[i])
			}
		}
	}
}

// A weight of another shape is refused, naming the layer and both
// shapes, and the model keeps its weights; SkipMismatch loads the rest
// and notes what it skipped, as Keras's skip_mismatch warns.
func TestLoadWeightsH5FormatMismatch(t *testing.T) {
	path := writeH5Format(t, [2]string{"dense_1", "dense_2"}, [2]int{4, 3}, false)
	m := twoDense(t)
	before, _ := m.GetWeights()
	err := m.LoadWeights(path)
	for _, want := range []string{"shape mismatch in layer #1 (named b in this model, dense_2 in the file) for weight kernel: the weight has shape (4, 2), the file's dense_2/kernel:0 has shape (4, 3)", "saved from another architecture"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("error %v, want one containing %q", err, want)
		}
	}
	after, _ := m.GetWeights()
	if !slices.Equal(after[0], before[0]) {
		t.Error("a refused file changed the model's weights")
	}
	if err := m.LoadWeightsWith(path, keras.LoadWeightsOptions{SkipMismatch: true}); err != nil {
		t.Fatal(err)
	}
	after, _ = m.GetWeights()
	if !slices.Equal(after[0], counting(100, 12)) || !slices.Equal(after[2], before[2]) {
		t.Errorf("SkipMismatch: layer a %v (want the file's), layer b's kernel changed: %v", after[0], after[2])
	}
	notes := strings.Join(m.Notes(), "\n")
	if !strings.Contains(notes, "skipped the shape mismatch in layer #1") || strings.Count(notes, "skipped") != 2 {
		t.Errorf("notes %q, want the kernel's and the bias's skips", notes)
	}
	if err := m.LoadWeightsWith(filepath.Join(t.TempDir(), "w.weights.h5"), keras.LoadWeightsOptions{ByName: true}); err == nil || !strings.Contains(err.Error(), "legacy HDF5 files (.h5) only") {
		t.Errorf("ByName on a .weights.h5: %v", err)
	}
}

// ByName loads the layers the file names and leaves the others; without
// it a file with another number of layers is refused.
func TestLoadWeightsH5FormatByName(t *testing.T) {
	path := writeH5Format(t, [2]string{"x", "b"}, [2]int{4, 2}, false)
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, layers.Named("a", &layers.Dense{Units: 4}), layers.Named("b", &layers.Dense{Units: 2}), layers.Named("c", &layers.Dense{Units: 1}))
	if err != nil {
		t.Fatal(err)
	}
	before, _ := m.GetWeights()
	if err := m.LoadWeights(path); err == nil || !strings.Contains(err.Error(), "layer count mismatch: the model has 3 layers with weights, the file 2") {
		t.Fatalf("topological load of 2 layers into 3: %v", err)
	}
	if err := m.LoadWeightsWith(path, keras.LoadWeightsOptions{ByName: true}); err != nil {
		t.Fatal(err)
	}
	got, _ := m.GetWeights()
	if !slices.Equal(got[0], before[0]) || !slices.Equal(got[2], counting(200, 8)) || !slices.Equal(got[4], before[4]) {
		t.Errorf("by name: a %v (want unchanged), b %v (want the file's), c %v (want unchanged)", got[0], got[2], got[4])
	}
}

// A legacy .h5 file cut short is an error of LoadWeights and LoadModel
// that leaves the model's weights as they were; one with a byte flipped
// anywhere never panics (HDF5 has no checksums: a byte flipped in a
// weight's data reads as another value, as in Keras).
func TestH5FormatDamagedFiles(t *testing.T) {
	path := writeH5Format(t, [2]string{"a", "b"}, [2]int{4, 2}, true)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := twoDense(t)
	before, _ := m.GetWeights()
	damaged := filepath.Join(t.TempDir(), "damaged.h5")
	try := func(what string, b []byte, mustFail bool) {
		t.Helper()
		if err := os.WriteFile(damaged, b, 0o644); err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("%s: panic %v", what, r)
				}
			}()
			if err := m.LoadWeights(damaged); err == nil && mustFail {
				t.Errorf("%s: loaded without error", what)
			} else if err != nil {
				if got, _ := m.GetWeights(); !slices.Equal(got[0], before[0]) {
					t.Errorf("%s: a failed load changed the weights", what)
				}
			}
			m.SetWeights(before)
			keras.LoadModel(damaged)
		}()
	}
	for _, n := range []int{0, 8, 100, len(data) / 3, len(data) / 2, len(data) - 1} {
		try(fmt.Sprintf("cut at %d of %d bytes", n, len(data)), data[:n], true)
	}
	for i := 0; i < len(data); i += max(1, len(data)/200) {
		b := slices.Clone(data)
		b[i] ^= 0xff
		try(fmt.Sprintf("byte %d flipped", i), b, false)
	}
}
