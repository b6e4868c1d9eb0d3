package keras_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// newMultiModel is a body Dense ("body") and a head Dense ("head")
// compiled with opt.
func newMultiModel(t *testing.T, be backend.Backend, opt optimizers.Optimizer) *keras.Model {
	t.Helper()
	in := layers.Input(6)
	body := &layers.Dense{Units: 4, Activation: "tanh"}
	body.Common().Name = "body"
	head := &layers.Dense{Units: 3}
	head.Common().Name = "head"
	m := keras.Must(keras.NewModel(in, layers.Apply(head, layers.Apply(body, in))))
	if err := m.Compile(keras.CompileOptions{Optimizer: opt, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name(), Seed: 4}); err != nil {
		t.Fatal(err)
	}
	return m
}

// Each variable is updated by the optimizer its path selects: the head
// by an SGD of learning rate 0 (so it stays as it was), the body by
// Adam; the state saves and loads so that training goes on as it would
// have.
func TestMultiOptimizerSplitsTheVariables(t *testing.T) {
	ctx := context.Background()
	x, y := smallData(16)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		multi := func() *optimizers.MultiOptimizer {
			return &optimizers.MultiOptimizer{Default: optimizers.NewSGD(0, 0),
				ByPath: []optimizers.PathOptimizer{{Path: "body/.*", Optimizer: &optimizers.Adam{LearningRate: 0.05}}, {Path: "unused", Optimizer: &optimizers.RMSprop{}}}}
		}
		m := newMultiModel(t, be, multi())
		before, _ := m.GetWeights()
		if _, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 2, BatchSize: 8, Verbose: keras.Silent}); err != nil {
			t.Fatal(err)
		}
		after, _ := m.GetWeights()
		if slices.Equal(before[0], after[0]) || slices.Equal(before[1], after[1]) {
			t.Error("Adam left the body's weights as they were")
		}
		if !slices.Equal(before[2], after[2]) || !slices.Equal(before[3], after[3]) {
			t.Error("the head's SGD (learning rate 0) changed its weights")
		}
		path := filepath.Join(t.TempDir(), "multi.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := optimizers.AsMulti(loaded.Optimizer()); !ok {
			t.Fatalf("the loaded model's optimizer is %T, want a MultiOptimizer", loaded.Optimizer())
		}
		for _, model := range []*keras.Model{m, loaded} {
			if _, err := model.TrainOnBatch(ctx, x, y, keras.OnBatchOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		a, _ := m.GetWeights()
		b, _ := loaded.GetWeights()
		for i := range a {
			if !slices.Equal(a[i], b[i]) {
				t.Errorf("weight %d: the loaded model trains otherwise than the saved one (its Adam state was not restored)", i)
			}
		}
		if _, err := m.LearningRate(); err == nil || !strings.Contains(err.Error(), "no learning rate of its own") {
			t.Errorf("LearningRate of a MultiOptimizer: %v, want an error saying it has none", err)
		}
	})
}

func TestMultiOptimizerErrors(t *testing.T) {
	sgd := func() optimizers.Optimizer { return &optimizers.SGD{} }
	for _, c := range []struct {
		opt  *optimizers.MultiOptimizer
		want string
	}{
		{&optimizers.MultiOptimizer{}, "Default is nil"},
		{&optimizers.MultiOptimizer{Default: sgd(), ByPath: []optimizers.PathOptimizer{{Path: "body/.*", Optimizer: sgd()}, {Path: ".*/kernel", Optimizer: sgd()}}}, "matches 2 entries"},
		{&optimizers.MultiOptimizer{Default: sgd(), ByPath: []optimizers.PathOptimizer{{Path: "body/(", Optimizer: sgd()}}}, "not a regular expression"},
		{&optimizers.MultiOptimizer{Default: &optimizers.LossScaleOptimizer{Inner: sgd()}}, "cannot be inside a MultiOptimizer"},
	} {
		in := layers.Input(6)
		body := &layers.Dense{Units: 4}
		body.Common().Name = "body"
		m := keras.Must(keras.NewModel(in, layers.Apply(body, in)))
		err := m.Compile(keras.CompileOptions{Optimizer: c.opt, Loss: keras.Loss("mse")})
		if err == nil {
			x := keras.Array{Shape: []int{2, 6}, Data: make([]float32, 12)}
			_, err = m.Fit(context.Background(), x, keras.Array{Shape: []int{2, 4}, Data: make([]float32, 8)}, keras.FitOptions{Verbose: keras.Silent})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error saying %q", c.opt, err, c.want)
		}
	}
}
