package keras_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/metrics"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/utils"
)

func init() {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(losses.Register("sum_squared_error", func(b backend.Builder, y, p backend.Value) backend.Value {
		return b.Sum(b.Square(b.Sub(y, p)), 1)
	}))
	must(metrics.Register("largest_prob", func(b backend.Builder, _, p backend.Value) backend.Value {
		return b.Mean(b.Mul(p, p), 1)
	}))
}

func unregisteredLoss(b backend.Builder, y, p backend.Value) backend.Value {
	return b.Mean(b.Square(b.Sub(y, p)), 1)
}

// Loss and metric functions registered by name compile by that name, are
// saved by it, and load again, as Keras's registered functions do; an
// unregistered one fails to load with an error that says to register it.
func TestRegisteredFunctionsSaveAndLoad(t *testing.T) {
	ctx := context.Background()
	x, y := smallData(32)
	yHot, err := utils.ToCategorical(y, 3)
	if err != nil {
		t.Fatal(err)
	}
	m := smallMLP(t, false)
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sum_squared_error"), Metrics: keras.Metrics("largest_prob"), Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Fit(ctx, x, yHot, keras.FitOptions{Epochs: 1, BatchSize: 8, Verbose: keras.Silent}); err != nil {
		t.Fatal(err)
	}
	want, err := m.Evaluate(ctx, x, yHot, keras.EvaluateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "registered.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := loaded.Evaluate(ctx, x, yHot, keras.EvaluateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"loss", "largest_prob"} {
		a, okA := want.Get(name)
		b, okB := got.Get(name)
		if !okA || !okB || math.Abs(a-b) > 1e-6 {
			t.Errorf("%s: %v before saving, %v after loading", name, a, b)
		}
	}

	m2 := smallMLP(t, false)
	keras.MustOK(m2.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.LossOf(losses.FromFunc(unregisteredLoss)), Seed: 1}))
	if _, err := m2.Fit(ctx, x, yHot, keras.FitOptions{Epochs: 1, BatchSize: 8, Verbose: keras.Silent}); err != nil {
		t.Fatal(err)
	}
	path2 := filepath.Join(t.TempDir(), "unregistered.keras")
	keras.MustOK(m2.Save(path2))
	_, err = keras.LoadModel(path2)
	wantErr(t, err, `unknown loss "unregisteredLoss"`, "losses.Register")

	wantErr(t, losses.Register("mse", unregisteredLoss), `"mse" is the name of a built-in loss function`)
	wantErr(t, losses.Register("sum_squared_error", unregisteredLoss), "registered already")
	wantErr(t, metrics.Register("accuracy", nil), "nil")
	wantErr(t, metrics.Register("accuracy", metrics.Func(unregisteredLoss)), `"accuracy" is the name of a built-in metric function`)
}
