package keras_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// Settings and options a reliability test found accepted: each is now an
// error naming it (each case failed before its fix: a panic, a NaN loss
// blamed on the data, a silent default, a model Keras refuses).
func TestBadSettingsAreRefused(t *testing.T) {
	ctx := context.Background()
	x := keras.Must(keras.NewArray([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 4, 3))
	y := keras.Must(keras.NewArray([]float32{0, 1, 2, 1}, 4))
	model := func() *keras.Model {
		m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, &layers.Dense{Units: 3, Activation: "softmax"}))
		keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy")}))
		return m
	}
	fit := func(opts keras.FitOptions) error {
		opts.Verbose = keras.Silent
		_, err := model().Fit(ctx, x, y, opts)
		return err
	}
	for _, c := range []struct {
		name string
		err  func() error
		says string
	}{
		{"ValidationSplit NaN", func() error { return fit(keras.FitOptions{ValidationSplit: math.NaN()}) }, "ValidationSplit must be in [0, 1), got NaN"},
		{"ClassWeight negative class", func() error { return fit(keras.FitOptions{ClassWeight: map[int]float64{-1: 2}}) }, "ClassWeight has class -1, but the output has the classes 0 to 2"},
		{"ClassWeight unknown class", func() error { return fit(keras.FitOptions{ClassWeight: map[int]float64{0: 1, 3: 2}}) }, "ClassWeight has class 3"},
		{"ClassWeight NaN weight", func() error { return fit(keras.FitOptions{ClassWeight: map[int]float64{1: math.NaN()}}) }, "ClassWeight for class 1 is NaN"},
		{"Dropout NaN", func() error {
			_, err := keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, &layers.Dropout{Rate: math.NaN()})
			return err
		}, "Rate is NaN: give a finite number"},
		{"Dropout NaN, built later", func() error {
			m := keras.Must(keras.NewSequential(&layers.Dense{Units: 2}, &layers.Dropout{Rate: math.NaN()}))
			return m.BuildInput(3)
		}, "Rate is NaN"},
		{"BatchNormalization epsilon Inf", func() error {
			_, err := keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, &layers.BatchNormalization{Epsilon: math.Inf(1)})
			return err
		}, "Epsilon is +Inf"},
		{"Adam beta NaN", func() error {
			m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, &layers.Dense{Units: 1}))
			return m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{Beta1: math.NaN()}, Loss: keras.Loss("mse")})
		}, "Beta1 is NaN"},
		{"Sequential layers with one name", func() error {
			_, err := keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, layers.Named("d", &layers.Dense{Units: 2}), layers.Named("d", &layers.Dense{Units: 2}))
			return err
		}, `are named "d"`},
		{"Sequential layers with one name, built later", func() error {
			m := keras.Must(keras.NewSequential(layers.Named("d", &layers.Dense{Units: 2}), layers.Named("d", &layers.Dense{Units: 2})))
			return m.BuildInput(3)
		}, `are named "d"`},
	} {
		err := c.err()
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.says)
		}
	}
}

// An index out of an Embedding's range computed inside the graph (after a
// Rescaling, so no check of the input data can see it) is an error naming
// the layer, on every engine, not the engine's instruction listing.
func TestOutOfRangeIndexNamesTheLayer(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		in := layers.Input(3)
		ids := layers.Apply(&layers.Rescaling{Scale: 10}, in)
		out := layers.Apply(&layers.Flatten{}, layers.Apply(layers.Named("tokens", &layers.Embedding{InputDim: 5, OutputDim: 2}), ids))
		m := keras.Must(keras.NewModel(in, out))
		keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Backend: be.Name()}))
		ok := keras.Must(keras.NewArray([]float32{0, 0.1, 0.4}, 1, 3))
		if _, err := m.Predict(context.Background(), ok, keras.PredictOptions{}); err != nil {
			t.Fatalf("ids in range: %v", err)
		}
		bad := keras.Must(keras.NewArray([]float32{0, 0.1, 3}, 1, 3)) // id 30 of 5
		_, err := m.Predict(context.Background(), bad, keras.PredictOptions{})
		if err == nil || !strings.Contains(err.Error(), `layer "tokens" (Embedding)`) || strings.Contains(err.Error(), "PC ") {
			t.Fatalf("an id out of range: %v, want an error naming the layer", err)
		}
		t.Log(err)
	})
}
