package keras_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kerasgo/kerasgo/internal/h5"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// mlpBlock is the MLPBlock of Keras's guide "Making new layers and models
// via subclassing": a layer that holds three Dense layers in its fields
// and calls them in turn.
type mlpBlock struct {
	layers.Base
	linear1 *layers.Dense `keras:"linear_1"`
	linear2 *layers.Dense `keras:"linear_2"`
	linear3 *layers.Dense `keras:"linear_3"`
}

func newMLPBlock() *mlpBlock {
	return &mlpBlock{linear1: &layers.Dense{Units: 32}, linear2: &layers.Dense{Units: 32}, linear3: &layers.Dense{Units: 3}}
}

func (*mlpBlock) ClassName() string { return "MLPBlock" }

// GetConfig has nothing to save: the block's sublayers are fixed, as in
// the guide's Python class (scripts/keras-open.py registers one).
func (*mlpBlock) GetConfig() (serialization.Config, error) { return serialization.Config{}, nil }

func init() {
	if err := keras.RegisterLayer("MLPBlock", func(*serialization.Reader) (layers.Layer, error) { return newMLPBlock(), nil }); err != nil {
		panic(err)
	}
}

func (b *mlpBlock) Build(in []backend.Shape) (backend.Shape, error) {
	s, err := b.linear1.Build(in)
	if err != nil {
		return nil, err
	}
	if s, err = b.linear2.Build([]backend.Shape{s}); err != nil {
		return nil, err
	}
	return b.linear3.Build([]backend.Shape{s})
}

func (b *mlpBlock) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	x := ctx.B.Relu(b.linear1.Call(ctx, in))
	x = ctx.B.Relu(b.linear2.Call(ctx, []backend.Value{x}))
	return ctx.B.Softmax(b.linear3.Call(ctx, []backend.Value{x}))
}

func weightValues(t *testing.T, ws []*layers.Weight) [][]float32 {
	t.Helper()
	out := make([][]float32, len(ws))
	for i, w := range ws {
		v, err := w.Value()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = slices.Clone(v)
	}
	return out
}

// A layer holding layers counts, trains and saves their variables, as
// Keras tracks a layer's attributes; freezing it freezes them.
func TestLayerHoldingLayers(t *testing.T) {
	ctx := context.Background()
	x, y := smallData(64)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		block := newMLPBlock()
		in := layers.Input(6)
		m, err := keras.NewModel(in, layers.Apply(block, in))
		if err != nil {
			t.Fatal(err)
		}
		// Keras: 6*32+32 + 32*32+32 + 32*3+3 = 1379 parameters in 6 variables.
		if n, w := m.CountParams(), len(m.Weights()); n != 1379 || w != 6 {
			t.Fatalf("CountParams %d in %d variables, Keras gives 1379 in 6", n, w)
		}
		if got := layers.Sublayers(block); len(got) != 3 || got[0].Path != "linear_1" || got[2].Layer != block.linear3 {
			t.Fatalf("Sublayers = %v", got)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.01}, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name(), Seed: 3}); err != nil {
			t.Fatal(err)
		}
		before := weightValues(t, m.Weights())
		h, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 5, BatchSize: 16, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		if l := h.Logs["loss"]; l[len(l)-1] >= l[0] {
			t.Errorf("loss %v did not fall", l)
		}
		after := weightValues(t, m.Weights())
		for i := range before {
			if maxDiff(before[i], after[i]) == 0 {
				t.Errorf("variable %d (%s) did not train", i, m.Weights()[i].Name)
			}
		}

		// Saved in Keras's nested layout, and loaded back into a fresh block.
		path := filepath.Join(t.TempDir(), "block.keras")
		if err := m.SaveWeights(path[:len(path)-len(".keras")] + ".weights.h5"); err != nil {
			t.Fatal(err)
		}
		fresh := newMLPBlock()
		in2 := layers.Input(6)
		m2 := keras.Must(keras.NewModel(in2, layers.Apply(fresh, in2)))
		if err := m2.LoadWeights(path[:len(path)-len(".keras")] + ".weights.h5"); err != nil {
			t.Fatal(err)
		}
		saved, err := m.GetWeights()
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := m2.GetWeights()
		if err != nil || len(loaded) != len(saved) {
			t.Fatalf("loaded %d weights (%v), saved %d", len(loaded), err, len(saved))
		}
		for i := range saved {
			if maxDiff(saved[i], loaded[i]) != 0 {
				t.Errorf("weight %d differs after SaveWeights and LoadWeights into a fresh block", i)
			}
		}

		// Freezing the block freezes what it holds.
		block.SetTrainable(false)
		if len(m.TrainableWeights()) != 0 || block.linear2.Trainable() {
			t.Fatalf("frozen block: %d trainable weights, linear2 trainable %v", len(m.TrainableWeights()), block.linear2.Trainable())
		}
		// ...and unfreezing one of them afterwards trains that one only.
		block.linear2.SetTrainable(true)
		if got := m.TrainableWeights(); len(got) != 2 || got[0] != block.linear2.Common().Weights()[0] {
			t.Fatalf("after unfreezing linear_2: %d trainable weights", len(got))
		}
	})
}

// Unfreezing a layer inside a frozen base trains exactly that layer, as
// Keras 3 does: its outer model's trainable_weights are
// ['d2/kernel', 'd2/bias', 'head/kernel', 'head/bias'] (Keras 3.15.1).
func TestUnfreezeInsideFrozenBase(t *testing.T) {
	ctx := context.Background()
	x, y := smallData(64)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		in := layers.Input(6)
		d1, d2 := layers.Named("d1", &layers.Dense{Units: 5}), layers.Named("d2", &layers.Dense{Units: 4})
		base := keras.Must(keras.NewModel(in, layers.Apply(d2, layers.Apply(d1, in))))
		base.SetTrainable(false)
		l, err := base.GetLayer("d2")
		if err != nil {
			t.Fatal(err)
		}
		l.Common().SetTrainable(true)
		in2 := layers.Input(6)
		head := layers.Named("head", &layers.Dense{Units: 3, Activation: "softmax"})
		outer := keras.Must(keras.NewModel(in2, layers.Apply(head, layers.Apply(base, in2))))
		var names []string
		for _, w := range outer.TrainableWeights() {
			names = append(names, w.Name)
		}
		want := []*layers.Weight{d2.Common().Weights()[0], d2.Common().Weights()[1], head.Common().Weights()[0], head.Common().Weights()[1]}
		if !slices.Equal(outer.TrainableWeights(), want) {
			t.Fatalf("trainable weights %v, Keras: d2's kernel and bias, head's kernel and bias", names)
		}
		if len(base.TrainableWeights()) != 0 {
			t.Errorf("the frozen base itself has %d trainable weights; Keras: none", len(base.TrainableWeights()))
		}
		if err := outer.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{LearningRate: 0.1}, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name(), Seed: 1}); err != nil {
			t.Fatal(err)
		}
		d1Before, d2Before := weightValues(t, d1.Common().Weights()), weightValues(t, d2.Common().Weights())
		if _, err := outer.Fit(ctx, x, y, keras.FitOptions{Epochs: 1, BatchSize: 16, Verbose: keras.Silent}); err != nil {
			t.Fatal(err)
		}
		d1After, d2After := weightValues(t, d1.Common().Weights()), weightValues(t, d2.Common().Weights())
		if maxDiff(d1Before[0], d1After[0]) != 0 || maxDiff(d1Before[1], d1After[1]) != 0 {
			t.Error("d1, frozen with the base, changed")
		}
		if maxDiff(d2Before[0], d2After[0]) == 0 {
			t.Error("d2, unfrozen inside the frozen base, did not train")
		}
	})
}

// A sublayer made inside Call has variables the model never saw: the
// error names the layer and says where sublayers go.
type madeInCall struct{ layers.Base }

func (*madeInCall) ClassName() string                               { return "MadeInCall" }
func (*madeInCall) Build(in []backend.Shape) (backend.Shape, error) { return backend.Shape{-1, 2}, nil }
func (l *madeInCall) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	d := &layers.Dense{Units: 2}
	if _, err := d.Build([]backend.Shape{{-1, 6}}); err != nil {
		panic(err)
	}
	return d.Call(ctx, in)
}

func TestSublayerMadeInCallIsAnError(t *testing.T) {
	in := layers.Input(6)
	m := keras.Must(keras.NewModel(in, layers.Apply(layers.Named("maker", &madeInCall{}), in)))
	x, _ := smallData(4)
	_, err := m.Predict(context.Background(), x, keras.PredictOptions{})
	wantErr(t, err, `"maker"`, `variable "kernel"`, "not a variable of the model", "hold sublayers in the layer's fields")
}

// A model with a layer holding layers saves as a .keras file whose
// config and weights Keras lays out as its own (the sublayers' variables
// under "layers/mlp_block/linear_1/vars"), and loads back.
func TestLayerHoldingLayersSaves(t *testing.T) {
	ctx := context.Background()
	in := layers.Input(6)
	m := keras.Must(keras.NewModel(in, layers.Apply(newMLPBlock(), in)))
	x, _ := smallData(8)
	want, err := m.Predict(ctx, x, keras.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "block.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := loaded.Predict(ctx, x, keras.PredictOptions{})
	if err != nil || maxDiff(got.Data, want.Data) != 0 {
		t.Fatalf("the loaded model predicts %v (%v), the saved one %v", got.Data[:3], err, want.Data[:3])
	}
	weightsPath := filepath.Join(t.TempDir(), "block.weights.h5")
	if err := m.SaveWeights(weightsPath); err != nil {
		t.Fatal(err)
	}
	f, err := h5.Open(weightsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, name := range []string{"layers/mlp_block/linear_1/vars/0", "layers/mlp_block/linear_1/vars/1", "layers/mlp_block/linear_3/vars/1"} {
		if f.Dataset(name) == nil {
			t.Errorf("the weights file has no %s, where Keras keeps the sublayer's variable", name)
		}
	}
}
