package keras_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// Under keras.SetDTypePolicy("mixed_bfloat16"), Compile gives the policy
// to every layer whose policy was never chosen, keeps one set to float32
// (the logits, as Keras's guide does), leaves a model compiled before
// untouched, and the model computes as one whose layers were given the
// policy one by one. Not parallel: the setting is the process's.
func TestGlobalDTypePolicy(t *testing.T) {
	if err := keras.SetDTypePolicy("mixed_bfloat17"); err == nil || !strings.Contains(err.Error(), "mixed_bfloat16") {
		t.Fatalf("SetDTypePolicy(mixed_bfloat17) = %v, want an error naming the policies", err)
	}
	if got := keras.DTypePolicy(); got != "float32" {
		t.Fatalf("DTypePolicy() = %q before any setting, want float32", got)
	}
	build := func(t *testing.T, explicit bool) (*keras.Model, *layers.Dense, *layers.Dense) {
		hidden, logits := &layers.Dense{Units: 16, Activation: "tanh"}, &layers.Dense{Units: 3}
		if explicit {
			must(t, hidden.SetDTypePolicy("mixed_bfloat16"))
		}
		must(t, logits.SetDTypePolicy("float32"))
		in := layers.Input(5)
		m, err := keras.NewModel(in, layers.Apply(logits, layers.Apply(hidden, in)))
		must(t, err)
		return m, hidden, logits
	}
	before, beforeHidden, _ := build(t, false)
	must(t, before.Compile(keras.CompileOptions{Loss: keras.Loss("mse")}))
	must(t, keras.SetDTypePolicy("mixed_bfloat16"))
	t.Cleanup(func() { _ = keras.SetDTypePolicy("float32") })
	if got := keras.DTypePolicy(); got != "mixed_bfloat16" {
		t.Fatalf("DTypePolicy() = %q, want mixed_bfloat16", got)
	}
	x := backendtest.Random(7, -2, 2, 8, 5)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		global, hidden, logits := build(t, false)
		must(t, global.Compile(keras.CompileOptions{Loss: keras.Loss("mse"), Backend: be.Name()}))
		if hidden.DTypePolicy() != "mixed_bfloat16" || logits.DTypePolicy() != "" {
			t.Fatalf("after Compile: hidden %q, logits %q; want mixed_bfloat16 and float32 (\"\")", hidden.DTypePolicy(), logits.DTypePolicy())
		}
		explicit, _, _ := build(t, true)
		must(t, explicit.Compile(keras.CompileOptions{Loss: keras.Loss("mse"), Backend: be.Name()}))
		w, err := global.GetWeights()
		must(t, err)
		must(t, explicit.SetWeights(w))
		in, err := keras.NewArray(float32s(x.Data), 8, 5)
		must(t, err)
		a, err := global.Predict(context.Background(), in, keras.PredictOptions{})
		must(t, err)
		b, err := explicit.Predict(context.Background(), in, keras.PredictOptions{})
		must(t, err)
		if !slices.Equal(a.Data, b.Data) {
			t.Errorf("predictions under the global policy differ from those of the layers given it one by one:\n%v\n%v", a.Data, b.Data)
		}
		bf16 := slices.Contains(be.Capabilities().Autocast, backend.BFloat16)
		if bf16 == strings.Contains(strings.Join(global.Notes(), "\n"), "computed in float32") {
			t.Errorf("engine %s (autocasts to %v): Notes = %q", be.Name(), be.Capabilities().Autocast, global.Notes())
		}
	})
	must(t, before.Compile(keras.CompileOptions{Loss: keras.Loss("mse")}))
	if got := beforeHidden.DTypePolicy(); got != "" {
		t.Errorf("a layer first compiled before SetDTypePolicy has policy %q after compiling again, want float32 (\"\")", got)
	}
}

// must fails t with err, if there is one.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
