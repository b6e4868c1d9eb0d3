package keras_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/metrics"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/utils"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// The names Keras users type are accepted: class-name spellings of
// optimizers, "mae"/"huber" losses, "mae"/"mse" metrics; and plain Go
// functions serve as a loss and a metric, logged under their names.
func TestKerasNamesAndFunctions(t *testing.T) {
	x, y := smallData(32)
	yHot, err := utils.ToCategorical(y, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, opt := range []string{"Adam", "SGD", "RMSprop", "Adadelta", "adam"} {
		for _, loss := range []string{"mae", "huber", "mse", "MeanSquaredError", "categorical_crossentropy"} {
			m := smallMLP(t, false)
			o, err := optimizers.Get(opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Compile(keras.CompileOptions{Optimizer: o, Loss: keras.Loss(loss), Metrics: keras.Metrics("mae", "mse", "accuracy"), Seed: 1}); err != nil {
				t.Fatalf("%s/%s: %v", opt, loss, err)
			}
			h, err := m.Fit(context.Background(), x, yHot, keras.FitOptions{Epochs: 1, BatchSize: 8, Verbose: keras.Silent})
			if err != nil {
				t.Fatalf("%s/%s: %v", opt, loss, err)
			}
			if got := h.Names(); len(got) != 4 || got[1] != "mae" || got[2] != "mse" || got[3] != "accuracy" {
				t.Errorf("%s/%s: logs %v, want loss, mae, mse, accuracy", opt, loss, got)
			}
		}
	}
	m := smallMLP(t, false)
	squaredError := func(b backend.Builder, yTrue, yPred backend.Value) backend.Value {
		return b.Sum(b.Square(b.Sub(yTrue, yPred)), 1)
	}
	largestProb := func(b backend.Builder, _, yPred backend.Value) backend.Value {
		return b.Mean(b.Mul(yPred, yPred), 1)
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.LossOf(losses.FromFunc(squaredError)), Metrics: keras.MetricsOf(metrics.FromFunc(largestProb)), Seed: 1}); err != nil {
		t.Fatal(err)
	}
	h, err := m.Fit(context.Background(), x, yHot, keras.FitOptions{Epochs: 1, BatchSize: 8, Verbose: keras.Silent})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Names(); len(got) != 2 || got[1] != "custom_metric" {
		t.Errorf("logs %v (closures are named custom_metric)", got)
	}
	m2 := smallMLP(t, false)
	if err := m2.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.LossOf(losses.FromFunc(namedLoss)), Metrics: keras.MetricsOf(metrics.FromFunc(namedLoss)), Seed: 1}); err != nil {
		t.Fatal(err)
	}
	h, err = m2.Fit(context.Background(), x, yHot, keras.FitOptions{Epochs: 1, BatchSize: 8, Verbose: keras.Silent})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Names(); len(got) != 2 || got[1] != "namedLoss" {
		t.Errorf("logs %v, want the function's name namedLoss", got)
	}
}

func namedLoss(b backend.Builder, yTrue, yPred backend.Value) backend.Value {
	return b.Sum(b.Square(b.Sub(yTrue, yPred)), 1)
}

func TestToCategorical(t *testing.T) {
	got, err := utils.ToCategorical(keras.Array{Shape: []int{4}, Data: []float32{0, 2, 1, 2}}, utils.InferClasses)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 1}
	if len(got.Shape) != 2 || got.Shape[0] != 4 || got.Shape[1] != 3 || maxDiff(got.Data, want) != 0 {
		t.Errorf("ToCategorical = %v %v", got.Shape, got.Data)
	}
	_, err = utils.ToCategorical(keras.Array{Shape: []int{2}, Data: []float32{0, 3}}, 3)
	wantErr(t, err, "label 1 is 3", "[0, 3)")
	_, err = utils.ToCategorical(keras.Array{Shape: []int{2}, Data: []float32{0, 1.5}}, utils.InferClasses)
	wantErr(t, err, "label 1 is 1.5")
	// 0 classes is a mistake, not Keras's num_classes=None (issue 39).
	_, err = utils.ToCategorical(keras.Array{Shape: []int{2}, Data: []float32{0, 1}}, 0)
	wantErr(t, err, "numClasses is 0", "utils.InferClasses")
	// Integer labels are one-hot encoded as float ones are.
	got, err = utils.ToCategorical(keras.Array{Shape: []int{3, 1}, Ints: []int32{2, 0, 1}}, 3)
	if err != nil || maxDiff(got.Data, []float32{0, 0, 1, 1, 0, 0, 0, 1, 0}) != 0 {
		t.Errorf("ToCategorical of Ints = %v, %v", got.Data, err)
	}
	_, err = utils.ToCategorical(keras.Array{Shape: []int{2, 2}, Data: []float32{0, 1, 1, 0}}, 2)
	wantErr(t, err, "shape [2 2]")
}

// Model names are unique per process, as Keras's: two automatically
// named Sequential models nest in a third, which saves and loads them.
func TestModelNamesUniquePerProcess(t *testing.T) {
	keras.ClearSession()
	a, err := keras.NewSequential(&layers.InputLayer{Shape: []int{4}}, &layers.Dense{Units: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, err := keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, &layers.Dense{Units: 2})
	if err != nil {
		t.Fatal(err)
	}
	if a.Name != "sequential" || b.Name != "sequential_1" {
		t.Fatalf("names %q and %q, want sequential and sequential_1", a.Name, b.Name)
	}
	in := layers.Input(4)
	m, err := keras.NewModel(in, layers.Apply(b, layers.Apply(a, in)))
	if err != nil {
		t.Fatalf("nesting two automatically named models: %v", err)
	}
	if m.Name != "functional" {
		t.Errorf("the first functional model is %q", m.Name)
	}
	path := filepath.Join(t.TempDir(), "nested.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := mustWeights(t, loaded), mustWeights(t, m); !sameWeights(got, want) {
		t.Error("the loaded nested models hold other weights")
	}
}
