package keras_test

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// rewriteArchive copies a .keras file, letting edit change each entry.
func rewriteArchive(t *testing.T, src, dst string, edit func(name string, data []byte) []byte) {
	t.Helper()
	entries := unzip(t, src)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"metadata.json", "config.json", "model.weights.h5"} {
		data := edit(name, entries[name])
		if data == nil {
			continue
		}
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Settings kerasgo does not implement, shapes that disagree with the
// config, and broken files are errors that say what is wrong.
func TestLoadModelRejectsWhatItCannotHonour(t *testing.T) {
	src := fixture(t, "Aman-21k__cnn-fashion-mnist-classifier.keras")
	dir := t.TempDir()
	replaceConfig := func(old, new string) func(string, []byte) []byte {
		return func(name string, data []byte) []byte {
			if name == "config.json" {
				if !bytes.Contains(data, []byte(old)) {
					t.Fatalf("config.json has no %q", old)
				}
				return bytes.Replace(data, []byte(old), []byte(new), 1)
			}
			return data
		}
	}
	cases := []struct {
		name string
		edit func(string, []byte) []byte
		want []string
	}{
		{"channels first", replaceConfig(`"data_format": "channels_last"`, `"data_format": "channels_first"`), []string{`layer "conv2d" (Conv2D)`, `option "data_format"`, "not supported"}},
		{"groups", replaceConfig(`"groups": 1`, `"groups": 2`), []string{`layer "conv2d" (Conv2D)`, "groups 2 must divide the input channels (1)"}},
		{"regularizer", replaceConfig(`"kernel_regularizer": null`, `"kernel_regularizer": {"module": "my_package", "class_name": "SpectralNorm", "config": {"power": 2}}`), []string{`layer "conv2d" (Conv2D)`, `option "kernel_regularizer"`, "kerasgo has no regularizer SpectralNorm"}},
		{"regularizer factor", replaceConfig(`"kernel_regularizer": null`, `"kernel_regularizer": {"module": "keras.regularizers", "class_name": "L2", "config": {"l2": -1.0}}`), []string{`option "kernel_regularizer"`, "l2 = -1: want a finite number >= 0"}},
		{"constraint axis", replaceConfig(`"kernel_constraint": null`, `"kernel_constraint": {"module": "keras.constraints", "class_name": "MaxNorm", "config": {"max_value": 2, "axis": 7}}`), []string{`layer "conv2d" (Conv2D)`, "kernel_constraint", "axis [7] does not fit a weight of rank 4"}},
		{"activation", replaceConfig(`"activation": "relu"`, `"activation": "gelu_new"`), []string{`layer "conv2d" (Conv2D)`, `option "activation"`, "gelu_new"}},
		{"unknown option", replaceConfig(`"filters": 32,`, `"filters": 32, "lora_rank": 4,`), []string{`option "lora_rank" = 4 is not supported`}},
		{"optimizer", replaceConfig(`"class_name": "Adam"`, `"class_name": "Shampoo"`), []string{"compile_config", "kerasgo has no Shampoo optimizer yet"}},
		{"weight shape", replaceConfig(`"filters": 32,`, `"filters": 16,`), []string{`layer "conv2d" (Conv2D)`, "layers/conv2d/vars/0 has shape (3, 3, 1, 32), the layer needs (3, 3, 1, 16)"}},
		{"zero strides", replaceConfig(`"strides": [1, 1]`, `"strides": [0, 0]`), []string{`layer "conv2d" (Conv2D)`, `option "strides"`, "want integers >= 1, got [0 0]"}},
		{"units as a string", replaceConfig(`"units": 10`, `"units": "10"`), []string{`option "units"`, `want an integer, got the string "10"`}},
		// Issue 39: accepted or unclear before.
		{"zero groups", replaceConfig(`"groups": 1`, `"groups": 0`), []string{`layer "conv2d" (Conv2D)`, `option "groups"`, "got 0"}},
		{"null strides", replaceConfig(`"strides": [1, 1]`, `"strides": null`), []string{`layer "conv2d" (Conv2D)`, `option "strides"`, "null"}},
		{"huge units", replaceConfig(`"units": 10`, `"units": 1e12`), []string{`option "units"`, "1e+12", "too large"}},
		{"null units", replaceConfig(`"units": 10`, `"units": null`), []string{`option "units"`, "null", "an integer"}},
		{"overflowing number", replaceConfig(`"units": 10`, `"units": 1e999`), []string{"config.json", "1e999", "out of range"}},
		{"null class name", replaceConfig(`"class_name": "Conv2D"`, `"class_name": null`), []string{"layer 1 of the model config has the class_name null", "want the layer's class name"}},
		{"config is a list", func(name string, data []byte) []byte {
			if name == "config.json" {
				return []byte("[1, 2]")
			}
			return data
		}, []string{"config.json", "holds a list", "not a saved model"}},
		{"config is a string", func(name string, data []byte) []byte {
			if name == "config.json" {
				return []byte(`"model"`)
			}
			return data
		}, []string{"config.json", `holds the string "model"`, "not a saved model"}},
		{"null config", func(name string, data []byte) []byte {
			if name == "config.json" {
				return []byte("null")
			}
			return data
		}, []string{"config.json", "holds null", "not a saved model"}},
		{"missing weights", func(name string, data []byte) []byte {
			if name == "model.weights.h5" {
				return nil
			}
			return data
		}, []string{"has no model.weights.h5"}},
		{"truncated weights", func(name string, data []byte) []byte {
			if name == "model.weights.h5" {
				return data[:len(data)/3]
			}
			return data
		}, []string{"model.weights.h5", "not a readable HDF5 file"}},
		{"broken config", func(name string, data []byte) []byte {
			if name == "config.json" {
				return data[:len(data)/2]
			}
			return data
		}, []string{"config.json"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".keras")
			rewriteArchive(t, src, p, c.edit)
			_, err := keras.LoadModel(p)
			wantErr(t, err, c.want...)
		})
	}
	_, err := keras.LoadModel(filepath.Join(dir, "absent.keras"))
	wantErr(t, err, "no model file", "absent.keras")
	junk := filepath.Join(dir, "junk.keras")
	os.WriteFile(junk, []byte("this is not a zip file"), 0o644)
	_, err = keras.LoadModel(junk)
	wantErr(t, err, "not a .keras file")
}

func TestSaveRejectsBadPaths(t *testing.T) {
	m := smallMLP(t, false)
	wantErr(t, m.Save(filepath.Join(t.TempDir(), "model.h5")), "must end in .keras")
	wantErr(t, m.SaveWeights(filepath.Join(t.TempDir(), "model.bin")), ".weights.h5", ".safetensors")
	wantErr(t, m.Save(filepath.Join(t.TempDir(), "no-such-dir", "m.keras")), "no-such-dir")
}

// A .keras archive whose weights entry inflates to far more than the
// archive (a zip bomb) is refused before it is inflated, and a stored
// weights entry with a flipped byte is refused by its CRC-32.
func TestLoadModelRefusesBombsAndFlippedBytes(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "m.keras")
	m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, &layers.Dense{Units: 2}))
	keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse")}))
	keras.MustOK(m.Save(src))
	entries := unzip(t, src)

	bomb := filepath.Join(dir, "bomb.keras")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range []string{"metadata.json", "config.json"} {
		w, _ := zw.Create(name)
		w.Write(entries[name])
	}
	w, _ := zw.Create("model.weights.h5") // deflated: 256 MB of zeros in about 250 KB
	zeros := make([]byte, 1<<20)
	for range 256 {
		w.Write(zeros)
	}
	zw.Close()
	os.WriteFile(bomb, buf.Bytes(), 0o644)
	_, err := keras.LoadModel(bomb)
	wantErr(t, err, "model.weights.h5 is not a readable HDF5 file", "does not start with an HDF5 superblock")

	// kerasgo stores the weights uncompressed, as Keras does: flip one
	// byte of them inside the archive.
	raw, _ := os.ReadFile(src)
	at := bytes.Index(raw, []byte("\x89HDF\r\n\x1a\n"))
	if at < 0 {
		t.Fatal("no stored HDF5 file in the archive")
	}
	raw[at+len(entries["model.weights.h5"])-10] ^= 0x40
	flipped := filepath.Join(dir, "flipped.keras")
	os.WriteFile(flipped, raw, 0o644)
	_, err = keras.LoadModel(flipped)
	wantErr(t, err, "model.weights.h5 does not match its CRC-32")
}

// .weights.h5 and .safetensors files have no checksum: SaveWeights writes
// a digest beside them and LoadWeights refuses a file that does not match
// it (a flipped byte loaded as a changed weight before); a file without a
// digest (Keras's) loads as it is.
func TestLoadWeightsChecksTheDigest(t *testing.T) {
	dir := t.TempDir()
	m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, &layers.Dense{Units: 2}))
	keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse")}))
	for _, name := range []string{"w.weights.h5", "w.safetensors"} {
		path := filepath.Join(dir, name)
		keras.MustOK(m.SaveWeights(path))
		digest, err := os.ReadFile(path + ".sha256")
		if err != nil || !strings.HasSuffix(string(digest), "  "+name+"\n") {
			t.Fatalf("%s: digest %q, %v", name, digest, err)
		}
		keras.MustOK(m.LoadWeights(path))
		raw, _ := os.ReadFile(path)
		raw[len(raw)-3] ^= 0x01 // inside the last weight's data
		os.WriteFile(path, raw, 0o644)
		wantErr(t, m.LoadWeights(path), name, "does not match its digest")
		os.Remove(path + ".sha256")
		if err := m.LoadWeights(path); err != nil { // no digest: loads, as Keras's files do
			t.Fatalf("%s without a digest: %v", name, err)
		}
	}
}

// An optimizer state that does not fit the file's optimizer (here an
// RMSprop with momentum's state under a config without momentum, as an
// older Keras's RMSprop file holds more variables than Keras 3.15's) is
// skipped as Keras's load_model skips it, with its warning: the model
// loads, predicts what was saved, says so in Notes, and trains.
func TestLoadModelSkipsAnOptimizerStateThatDoesNotFit(t *testing.T) {
	x, y := smallData(32)
	m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 3, Activation: "softmax"}))
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.RMSprop{LearningRate: 0.01, Momentum: 0.9}, Loss: keras.Loss("sparse_categorical_crossentropy")}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, Verbose: keras.Silent}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "momentum.keras"), filepath.Join(dir, "plain.keras")
	if err := m.Save(src); err != nil {
		t.Fatal(err)
	}
	rewriteArchive(t, src, dst, func(name string, data []byte) []byte {
		if name == "config.json" {
			if !bytes.Contains(data, []byte(`"momentum":0.9`)) {
				t.Fatalf("config.json has no momentum 0.9: %s", data)
			}
			return bytes.Replace(data, []byte(`"momentum":0.9`), []byte(`"momentum":0.0`), 1)
		}
		return data
	})
	back, err := keras.LoadModel(dst)
	if err != nil {
		t.Fatalf("LoadModel refused a file whose optimizer state Keras would skip: %v", err)
	}
	notes := strings.Join(back.Notes(), "\n")
	if !strings.Contains(notes, "optimizer's saved state was skipped") || !strings.Contains(notes, "Skipping variable loading for optimizer") {
		t.Errorf("Notes() = %q: want the skipped optimizer state, with Keras's warning", notes)
	}
	want, _ := m.Predict(context.Background(), x, keras.PredictOptions{})
	got, err := back.Predict(context.Background(), x, keras.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(got.Data, want.Data); d > 1e-6 {
		t.Errorf("the loaded model predicts %.3g away from the saved one", d)
	}
	if _, err := back.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, Verbose: keras.Silent}); err != nil {
		t.Errorf("the loaded model does not train: %v", err)
	}
	if orig, _ := keras.LoadModel(src); len(orig.Notes()) != 0 {
		t.Errorf("a file whose optimizer state fits has notes %q", orig.Notes())
	}
}
