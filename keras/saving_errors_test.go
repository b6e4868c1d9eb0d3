package keras_test

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
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
		{"regularizer", replaceConfig(`"kernel_regularizer": null`, `"kernel_regularizer": {"module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.01}}`), []string{`option "kernel_regularizer"`, "L2"}},
		{"activation", replaceConfig(`"activation": "relu"`, `"activation": "gelu_new"`), []string{`layer "conv2d" (Conv2D)`, `option "activation"`, "gelu_new"}},
		{"unknown option", replaceConfig(`"filters": 32,`, `"filters": 32, "lora_rank": 4,`), []string{`option "lora_rank" = 4 is not supported`}},
		{"optimizer", replaceConfig(`"class_name": "Adam"`, `"class_name": "Lamb"`), []string{"compile_config", "kerasgo has no Lamb optimizer yet"}},
		{"weight shape", replaceConfig(`"filters": 32,`, `"filters": 16,`), []string{`layer "conv2d" (Conv2D)`, "layers/conv2d/vars/0 has shape (3, 3, 1, 32), the layer needs (3, 3, 1, 16)"}},
		{"zero strides", replaceConfig(`"strides": [1, 1]`, `"strides": [0, 0]`), []string{`layer "conv2d" (Conv2D)`, `option "strides"`, "want integers >= 1, got [0 0]"}},
		{"units as a string", replaceConfig(`"units": 10`, `"units": "10"`), []string{`option "units"`, `want an integer, got the string "10"`}},
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
