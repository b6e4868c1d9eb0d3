package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// `kerasgo export` writes what Model.Export writes for the loaded file,
// with -shape as the InputSignature and -opset as the OpsetVersion.
func TestExportWritesTheModelsONNX(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "mlp.keras")
	m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{4}}, &layers.Dense{Units: 3, Activation: "softmax"}))
	keras.MustOK(m.Save(in))
	out := filepath.Join(dir, "mlp.onnx")
	if err := export([]string{"-opset", "18", "-shape", "-1,4", in, out}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	loaded := keras.Must(keras.LoadModel(in, keras.LoadOptions{}))
	var want bytes.Buffer
	keras.MustOK(loaded.ExportONNX(&want, keras.ExportOptions{OpsetVersion: 18, InputSignature: [][]int{{-1, 4}}}))
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("kerasgo export wrote %d bytes, Model.ExportONNX %d, or other bytes", len(got), want.Len())
	}
	if err := export([]string{"-shape", "-1,5", in, filepath.Join(dir, "bad.onnx")}); err == nil {
		t.Error("a -shape that contradicts the model exported")
	}
	var s shapeFlags
	if err := s.Set("-1,x"); err == nil {
		t.Error(`-shape -1,x parsed`)
	}
}
