package keras_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// onnxCase is one exported model and what kerasgo predicted for it.
type onnxCase struct {
	kerasref.ONNXCase
	want [][]float32
}

// onnxCases returns the exported models for kerasref.RunONNX.
func onnxCases(cs []onnxCase) []kerasref.ONNXCase {
	out := make([]kerasref.ONNXCase, len(cs))
	for i, c := range cs {
		out[i] = c.ONNXCase
	}
	return out
}

// onnxCaseOf exports m to dir and predicts xs with it, for
// kerasref.RunONNX.
func onnxCaseOf(t *testing.T, m *keras.Model, name, dir string, xs keras.Arrays, o keras.ExportOptions) (onnxCase, error) {
	t.Helper()
	if err := m.Export(filepath.Join(dir, name+".onnx"), o); err != nil {
		return onnxCase{}, err
	}
	outs, err := m.PredictOutputs(context.Background(), xs, keras.PredictOptions{})
	if err != nil {
		t.Fatalf("exported, but Predict failed: %v", err)
	}
	c := onnxCase{ONNXCase: kerasref.ONNXCase{Name: name}}
	for _, o := range outs {
		c.want = append(c.want, o.Data)
	}
	names := m.InputNames()
	for i, x := range xs {
		in := kerasref.ONNXInput{Name: names[i], DType: "float32", Shape: x.Shape}
		if dt := m.Inputs()[i].DType(); dt == backend.Int32 || dt == backend.Int64 {
			in.DType = "int32"
		}
		for _, v := range x.Data {
			in.Data = append(in.Data, float64(v))
		}
		for _, v := range x.Ints {
			in.Data = append(in.Data, float64(v))
		}
		c.Inputs = append(c.Inputs, in)
	}
	return c, nil
}

// onnxCatalogueFloor is how many catalogue models export and match
// onnxruntime today: fewer is a regression.
const onnxCatalogueFloor = 245

// Every model of the Keras catalogue exports to ONNX and onnxruntime
// computes what kerasgo does within 1e-5, for the batch it was given and
// for twice that batch; or the export is refused with an error naming
// the layer. A model refused because a length it leaves free changes
// what it computes (an RNN over steps of any number) exports once the
// InputSignature fixes that length, as the error says. The counts are
// logged.
func TestExportONNXCatalogue(t *testing.T) {
	corpus, cases, version := kerasCatalogue(t)
	kerasref.Python(t)
	dir := t.TempDir()
	var exported []onnxCase
	var fixed []string // exported with an InputSignature
	refused := map[string]string{}
	for _, c := range cases {
		m, err := keras.LoadModel(filepath.Join(corpus, c.Name+".keras"), keras.LoadOptions{})
		if err != nil {
			continue // TestKerasCatalogue reports it
		}
		var ref struct{ Inputs []refArray }
		readJSON(t, filepath.Join(corpus, c.Name+".json"), &ref)
		var xs keras.Arrays
		for _, in := range ref.Inputs {
			xs = append(xs, in.array())
		}
		oc, err := onnxCaseOf(t, m, c.Name, dir, xs, keras.ExportOptions{})
		if err != nil && strings.Contains(err.Error(), "ExportOptions.InputSignature") {
			var sig [][]int
			for _, x := range xs {
				sig = append(sig, append([]int{-1}, x.Shape[1:]...))
			}
			if oc, err = onnxCaseOf(t, m, c.Name, dir, xs, keras.ExportOptions{InputSignature: sig}); err == nil {
				fixed = append(fixed, c.Name)
			}
		}
		if err != nil {
			if !strings.Contains(err.Error(), "layer ") {
				t.Errorf("%s: export refused without naming the layer: %v", c.Name, err)
			}
			refused[c.Name] = err.Error()
			continue
		}
		exported = append(exported, oc)
	}
	results := kerasref.RunONNX(t, dir, onnxCases(exported))
	matched := 0
	var differ []string
	for _, c := range exported {
		ok := t.Run(c.Name, func(t *testing.T) {
			worst, err := results[c.Name].Worst(c.want)
			if err != nil {
				t.Fatal(err)
			}
			if worst > 1e-5 {
				t.Fatalf("onnxruntime's outputs differ from kerasgo's by %g (relative)", worst)
			}
			matched++
		})
		if !ok {
			differ = append(differ, c.Name)
		}
	}
	names := sortedKeys(refused)
	t.Logf("Keras %s catalogue: %d of %d models export to ONNX and match onnxruntime within 1e-5 (%d of them once an InputSignature fixes a free length: %v); %d refused %v; %d differ %v",
		version, matched, len(cases), len(fixed), fixed, len(refused), names, len(differ), differ)
	for _, n := range names {
		t.Logf("refused %s: %s", n, refused[n])
	}
	if matched < onnxCatalogueFloor {
		t.Errorf("only %d catalogue models export and match onnxruntime, %d did before", matched, onnxCatalogueFloor)
	}
}

// A model with token ids and floats in, two outputs, exports with its
// inputs and outputs named as the model's and the ids as int32, and
// onnxruntime computes what kerasgo does.
func TestExportONNXNamesAndTokenIds(t *testing.T) {
	kerasref.Python(t)
	tokens := layers.IntInput(5)
	tokens.Layer().Common().Name = "tokens"
	extra := layers.NamedInput("extra", 3)
	h := layers.Apply(&layers.Concatenate{},
		layers.Apply(&layers.Flatten{}, layers.Apply(&layers.Embedding{InputDim: 20, OutputDim: 4}, tokens)),
		layers.Apply(&layers.Dense{Units: 6, Activation: "gelu"}, extra))
	h = layers.Apply(&layers.LayerNormalization{}, h) // a mean: ReduceMean's axes moved from attribute to input at opset 18
	score := layers.Apply(layers.Named("score", &layers.Dense{Units: 1}), h)
	probs := layers.Apply(layers.Named("probs", &layers.Dense{Units: 3, Activation: "softmax"}), h)
	m, err := keras.NewFunctional([]*layers.KerasTensor{tokens, extra}, []*layers.KerasTensor{score, probs})
	if err != nil {
		t.Fatal(err)
	}
	xs := keras.Arrays{
		keras.Array{Shape: []int{2, 5}, Ints: []int32{1, 2, 3, 19, 0, 7, 7, 8, 9, 10}},
		keras.Must(keras.NewArray([]float32{0.5, -1, 2, 0, 0.25, -0.75}, 2, 3)),
	}
	dir := t.TempDir()
	var cs []onnxCase
	for opset := 17; opset <= 21; opset++ { // every opset kerasgo writes
		c, err := onnxCaseOf(t, m, fmt.Sprintf("names_opset%d", opset), dir, xs, keras.ExportOptions{OpsetVersion: opset})
		if err != nil {
			t.Fatal(err)
		}
		if c.Inputs[0].Name != "tokens" || c.Inputs[0].DType != "int32" || c.Inputs[1].Name != "extra" {
			t.Fatalf("inputs %q (%s) and %q, want tokens (int32) and extra", c.Inputs[0].Name, c.Inputs[0].DType, c.Inputs[1].Name)
		}
		cs = append(cs, c)
	}
	results := kerasref.RunONNX(t, dir, onnxCases(cs))
	for _, c := range cs {
		worst, err := results[c.Name].Worst(c.want)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
		} else if worst > 1e-5 {
			t.Errorf("%s: onnxruntime's outputs differ from kerasgo's by %g (relative)", c.Name, worst)
		}
	}
}

// Export refuses what it cannot write with an error that says what to
// do, and then leaves no file behind.
func TestExportErrors(t *testing.T) {
	dir := t.TempDir()
	m := mlp(t, 2, 3, "softmax")
	for _, c := range []struct {
		path string
		o    keras.ExportOptions
		want []string
	}{
		{"model.bin", keras.ExportOptions{}, []string{"keras.ExportONNX", ".onnx"}},
		{"model", keras.ExportOptions{Format: "tf_saved_model"}, []string{`format "tf_saved_model" is not supported`, `"onnx"`}},
		{"model.onnx", keras.ExportOptions{OpsetVersion: 9}, []string{"opsets 17 to 21"}},
		{"model.onnx", keras.ExportOptions{InputSignature: [][]int{{-1, 2}, {-1, 2}}}, []string{"2 shapes for the model's 1 inputs"}},
		{"model.onnx", keras.ExportOptions{InputSignature: [][]int{{-1}}}, []string{"has rank 1", "(batch first)"}},
		{"model.onnx", keras.ExportOptions{InputSignature: [][]int{{-1, 5}}}, []string{"dimension 1 must be -1 (free) or the input's length"}},
	} {
		path := filepath.Join(dir, c.path)
		wantErr(t, m.Export(path, c.o), c.want...)
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("a refused export left %s behind (%v)", c.path, err)
		}
	}
	unbuilt, err := keras.NewSequential(&layers.Dense{Units: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := unbuilt.Export(filepath.Join(dir, "unbuilt.onnx"), keras.ExportOptions{}); err == nil {
		t.Error("an unbuilt model exported")
	}
	in := layers.StringInput(1)
	lookup := layers.Apply(&layers.StringLookup{Vocabulary: []string{"a", "b"}}, in)
	host, err := keras.NewModel(in, layers.Apply(&layers.Dense{Units: 1}, lookup))
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, host.Export(filepath.Join(dir, "host.onnx"), keras.ExportOptions{}), "(StringLookup) runs on the host", "export the model after it")
}

// Export is safe beside itself and Predict on one model: every export
// of unchanged weights writes the same bytes (run under -race by make
// test).
func TestConcurrentExport(t *testing.T) {
	m := mlp(t, 4, 3, "softmax")
	var first bytes.Buffer
	if err := m.ExportONNX(&first, keras.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	x := keras.Must(keras.NewArray(make([]float32, 8), 2, 4))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 1 {
				_, err := m.Predict(context.Background(), x, keras.PredictOptions{})
				errs <- err
				return
			}
			var b bytes.Buffer
			if err := m.ExportONNX(&b, keras.ExportOptions{}); err != nil {
				errs <- err
				return
			}
			if !bytes.Equal(b.Bytes(), first.Bytes()) {
				errs <- errors.New("a concurrent export wrote other bytes")
				return
			}
			errs <- nil
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
