package keras_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// The reliability review of issue 39 found these crashes, hangs and
// wrongly accepted settings; each case failed before its fix.

// panicky is a callback that panics at the end of its first epoch.
type panicky struct{ callbacks.Base }

func (*panicky) OnEpochEnd(int, callbacks.Logs) { panic("boom") }

func smallModel(t *testing.T) (*keras.Model, keras.Array, keras.Array) {
	t.Helper()
	m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, &layers.Dense{Units: 2, Activation: "softmax"}))
	keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy")}))
	x := keras.Must(keras.NewArray([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 4, 3))
	y := keras.Must(keras.NewArray([]float32{0, 1, 1, 0}, 4))
	return m, x, y
}

// A nil callback (a typed nil too), a typed-nil layer and a callback that
// panics escaped as panics: they are errors naming the callback or layer.
func TestNilsAndPanicsAreErrors(t *testing.T) {
	ctx := context.Background()
	m, x, y := smallModel(t)
	var es *callbacks.EarlyStopping
	for _, cbs := range [][]callbacks.Callback{{nil}, {es}} {
		_, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 1, Verbose: keras.Silent, Callbacks: cbs})
		wantErr(t, err, "FitOptions.Callbacks", "callback 0 is a nil")
		_, err = m.Evaluate(ctx, x, y, keras.EvaluateOptions{Verbose: keras.Silent, Callbacks: cbs})
		wantErr(t, err, "EvaluateOptions.Callbacks", "callback 0 is a nil")
		_, err = m.Predict(ctx, x, keras.PredictOptions{Callbacks: cbs})
		wantErr(t, err, "PredictOptions.Callbacks", "callback 0 is a nil")
	}

	var dense *layers.Dense
	_, err := keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, dense)
	wantErr(t, err, "argument 1 is a nil *layers.Dense")
	out := layers.Apply(dense, layers.Input(3))
	wantErr(t, out.Err(), "the layer is a nil *layers.Dense")
	_, err = keras.NewModel(layers.Input(3), out)
	wantErr(t, err, "nil *layers.Dense")

	h, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 3, Verbose: keras.Silent, Callbacks: []callbacks.Callback{&panicky{}}})
	wantErr(t, err, "callback 0 (*keras_test.panicky) panicked in OnEpochEnd: boom")
	if h == nil || len(h.Epochs) != 1 {
		t.Errorf("history %v, want the one epoch trained before the panic", h)
	}
	// The model is still usable.
	if _, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 1, Verbose: keras.Silent}); err != nil {
		t.Fatal(err)
	}
}

// Dense{Units: 1 << 40} ended in a fatal out-of-memory at Predict: a
// weight larger than the memory left is an error when the layer is built.
func TestImpossibleWeightIsAnError(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the memory left is read from Linux's /proc; elsewhere only sizes no memory holds are refused")
	}
	_, err := keras.NewSequential(&layers.InputLayer{Shape: []int{8}}, &layers.Dense{Units: 1 << 40})
	wantErr(t, err, `weight "kernel" has shape (8, 1099511627776)`, "32.0 TiB", "check the layer's sizes")
	_, err = keras.NewSequential(&layers.InputLayer{Shape: []int{1 << 40}}, &layers.Dense{Units: 1 << 40})
	wantErr(t, err, "more values than any memory holds")
}

// Two models that apply one unnamed layer were refused ("two layers are
// named "dense"") because each model named its layers from its own count;
// Keras names layers per process, so only true duplicates are refused.
func TestLayerSharedByTwoModelsKeepsUniqueNames(t *testing.T) {
	shared := &layers.Dense{Units: 2}
	if _, err := keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, shared); err != nil {
		t.Fatal(err)
	}
	in := layers.Input(3)
	h := layers.Apply(&layers.Dense{Units: 3}, in)
	m, err := keras.NewModel(in, layers.Apply(shared, h))
	if err != nil {
		t.Fatalf("a model applying a layer another model named: %v", err)
	}
	names := map[string]bool{}
	for _, l := range m.Layers() {
		if names[l.Common().Name] {
			t.Fatalf("two layers named %q", l.Common().Name)
		}
		names[l.Common().Name] = true
	}
	// Two layers given one name are still refused.
	in = layers.Input(3)
	_, err = keras.NewModel(in, layers.Apply(layers.Named("d", &layers.Dense{Units: 2}), layers.Apply(layers.Named("d", &layers.Dense{Units: 3}), in)))
	wantErr(t, err, `named "d"`)
}

// Settings accepted before, each now an error naming the value.
func TestMoreBadSettingsAreRefused(t *testing.T) {
	ctx := context.Background()
	m, x, y := smallModel(t)
	err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy"), LossWeights: keras.ForAll(math.NaN())})
	wantErr(t, err, "LossWeights gives output", "the weight NaN")
	err = m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy"), LossWeights: keras.ByPosition(math.Inf(1))})
	wantErr(t, err, "the weight +Inf")
	m, _, _ = smallModel(t)
	_, err = m.Fit(ctx, x, y, keras.FitOptions{Verbose: 7})
	wantErr(t, err, "Verbose 7")
	_, err = m.Evaluate(ctx, x, y, keras.EvaluateOptions{Verbose: 9})
	wantErr(t, err, "Verbose 9")

	// CategoryEncoding dropped an index outside [0, NumTokens); Keras
	// raises.
	in := layers.Input(2)
	enc := keras.Must(keras.NewModel(in, layers.Apply(&layers.CategoryEncoding{NumTokens: 3}, in)))
	if _, err := enc.Predict(ctx, keras.Must(keras.NewArray([]float32{0, 2}, 1, 2)), keras.PredictOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = enc.Predict(ctx, keras.Must(keras.NewArray([]float32{0, 3}, 1, 2)), keras.PredictOptions{})
	wantErr(t, err, "CategoryEncoding", "index 3 at position 1", "[0, 3) (num_tokens)")
}

// A generator that keeps yielding after yield returned false kept the run
// waiting for it forever: it is stopped, and the run says why.
func TestGeneratorYieldingAfterFalse(t *testing.T) {
	m, x, y := smallModel(t)
	gen := func(yield func(keras.Batch, error) bool) {
		for {
			yield(keras.Batch{X: x, Y: y}, nil) // ignores false
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := m.Fit(context.Background(), keras.Batches{Generator: gen}, nil, keras.FitOptions{Epochs: 2, StepsPerEpoch: 3, Verbose: keras.Silent})
		done <- err
	}()
	select {
	case err := <-done:
		wantErr(t, err, "yielded again after yield returned false", "return once yield returns false")
	case <-time.After(time.Minute):
		t.Fatal("Fit did not return within a minute: it waits for a generator that ignores yield's false")
	}
}

// A .keras zip with two config.json entries was read (which one depends
// on the reader); a Functional config without its ends said "cannot read".
func TestAmbiguousOrIncompleteFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	in := layers.Input(3)
	m := keras.Must(keras.NewModel(in, layers.Apply(&layers.Dense{Units: 2}, in)))
	path := filepath.Join(dir, "m.keras")
	keras.MustOK(m.Save(path))
	entries := unzip(t, path)

	write := func(name string, files [][2]string) string {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, f := range files {
			w, err := zw.Create(f[0])
			if err != nil {
				t.Fatal(err)
			}
			w.Write([]byte(f[1]))
		}
		keras.MustOK(zw.Close())
		p := filepath.Join(dir, name)
		keras.MustOK(os.WriteFile(p, buf.Bytes(), 0o644))
		return p
	}
	cfg, meta, weights := string(entries["config.json"]), string(entries["metadata.json"]), string(entries["model.weights.h5"])
	twice := write("twice.keras", [][2]string{{"metadata.json", meta}, {"config.json", cfg}, {"config.json", `{"class_name": "Sequential"}`}, {"model.weights.h5", weights}})
	_, err := keras.LoadModel(twice)
	wantErr(t, err, "two entries named config.json")

	for _, key := range []string{"input_layers", "output_layers"} {
		if !strings.Contains(cfg, `"`+key+`"`) {
			t.Fatalf("config.json has no %s", key)
		}
		noEnds := write("no_"+key+".keras", [][2]string{{"metadata.json", meta}, {"config.json", strings.Replace(cfg, `"`+key+`"`, `"unused_`+key+`"`, 1)}, {"model.weights.h5", weights}})
		_, err = keras.LoadModel(noEnds)
		wantErr(t, err, "Functional model's config has no "+key)
	}
	var top map[string]any
	keras.MustOK(json.Unmarshal([]byte(cfg), &top))
	top["class_name"] = nil
	nullCfg := keras.Must(json.Marshal(top))
	nullClass := write("null_class.keras", [][2]string{{"metadata.json", meta}, {"config.json", string(nullCfg)}, {"model.weights.h5", weights}})
	_, err = keras.LoadModel(nullClass)
	wantErr(t, err, "class_name is null", "not a saved model")
}
