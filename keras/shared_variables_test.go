package keras_test

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// transferBase returns the base of Keras's "Transfer learning &
// fine-tuning" recipe: a small Sequential model used as a layer.
func transferBase(t *testing.T) *keras.Model {
	t.Helper()
	base, err := keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 16, Activation: "tanh"})
	if err != nil {
		t.Fatal(err)
	}
	return base
}

// underNewHead returns a model that applies base and then a new Dense
// head of 3 classes.
func underNewHead(t *testing.T, base *keras.Model) (*keras.Model, *layers.Dense) {
	t.Helper()
	in := layers.Input(6)
	head := &layers.Dense{Units: 3, Activation: "softmax"}
	m, err := keras.NewModel(in, layers.Apply(head, layers.Apply(base, in)))
	if err != nil {
		t.Fatal(err)
	}
	return m, head
}

func compileOn(t *testing.T, m *keras.Model, engine string, opt optimizers.Optimizer, seed int64) {
	t.Helper()
	if err := m.Compile(keras.CompileOptions{Optimizer: opt, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: engine, Seed: seed}); err != nil {
		t.Fatal(err)
	}
}

func mustWeights(t *testing.T, m *keras.Model) [][]float32 {
	t.Helper()
	w, err := m.GetWeights()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func fitSilently(t *testing.T, m *keras.Model, x, y keras.Array, epochs int) {
	t.Helper()
	if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: epochs, BatchSize: 16, Verbose: keras.Silent, Seed: 1}); err != nil {
		t.Fatal(err)
	}
}

func mustPredict(t *testing.T, m *keras.Model, x keras.Array) []float32 {
	t.Helper()
	p, err := m.Predict(context.Background(), x, keras.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p.Data
}

func sameWeights(a, b [][]float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if maxDiff(a[i], b[i]) != 0 {
			return false
		}
	}
	return true
}

// The recipe of Keras's "Transfer learning & fine-tuning" guide, which
// lost the trained base before variables belonged to layers: a base
// trained in model A keeps its values when placed under a new head in
// model B and B is compiled; freezing it keeps it through B's Fit;
// unfreezing and fine-tuning moves it, and A (which contains the same
// layer) predicts with the moved values.
func TestTransferLearningRecipe(t *testing.T) {
	x, y := smallData(64)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		base := transferBase(t)
		a, _ := underNewHead(t, base)
		compileOn(t, a, be.Name(), &optimizers.Adam{}, 1)
		untrained := mustWeights(t, base)
		fitSilently(t, a, x, y, 2)
		trained := mustWeights(t, base)
		if sameWeights(trained, untrained) {
			t.Fatal("training A did not change its base")
		}
		if aw := mustWeights(t, a); !sameWeights(aw[:2], trained) {
			t.Error("base.GetWeights() differs from the base's weights in A")
		}
		// The base predicts on its own, uncompiled, with A's training.
		if _, err := base.Predict(context.Background(), x, keras.PredictOptions{}); err != nil {
			t.Fatalf("the uncompiled base does not predict: %v", err)
		}

		b, headB := underNewHead(t, base)
		base.SetTrainable(false)
		compileOn(t, b, be.Name(), &optimizers.Adam{}, 2)
		if got := mustWeights(t, base); !sameWeights(got, trained) {
			t.Fatal("compiling B re-initialised the trained base")
		}
		headBefore := mustWeights(t, b)[2:]
		fitSilently(t, b, x, y, 2)
		if got := mustWeights(t, base); !sameWeights(got, trained) {
			t.Error("fitting B with the base frozen changed the base")
		}
		if sameWeights(mustWeights(t, b)[2:], headBefore) {
			t.Error("fitting B did not train its head")
		}
		if headB.Weights()[0].Version() == 0 {
			t.Error("B's head has no value")
		}

		aBefore := mustPredict(t, a, x)
		base.SetTrainable(true)
		compileOn(t, b, be.Name(), &optimizers.Adam{LearningRate: 1e-3}, 2)
		fitSilently(t, b, x, y, 1)
		tuned := mustWeights(t, base)
		if sameWeights(tuned, trained) {
			t.Fatal("fine-tuning B with the base unfrozen did not change the base")
		}
		if aw := mustWeights(t, a); !sameWeights(aw[:2], tuned) {
			t.Error("A does not see the base fine-tuned in B")
		}
		if maxDiff(mustPredict(t, a, x), aBefore) == 0 {
			t.Error("A's predictions did not change with the fine-tuned base")
		}
	})
}

// A base loaded with LoadModel keeps its pretrained values under a new
// head: compiling the new model does not re-initialise them.
func TestLoadedBaseUnderNewHead(t *testing.T) {
	x, y := smallData(64)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		pre := transferBase(t)
		a, _ := underNewHead(t, pre)
		compileOn(t, a, be.Name(), &optimizers.Adam{}, 1)
		fitSilently(t, a, x, y, 2)
		path := filepath.Join(t.TempDir(), "base.keras")
		if err := pre.Save(path); err != nil {
			t.Fatal(err)
		}
		base, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		pretrained := mustWeights(t, pre)
		if !sameWeights(mustWeights(t, base), pretrained) {
			t.Fatal("the loaded base does not hold the saved values")
		}
		b, _ := underNewHead(t, base)
		compileOn(t, b, be.Name(), &optimizers.Adam{}, 9)
		if !sameWeights(mustWeights(t, b)[:2], pretrained) {
			t.Error("compiling the new model replaced the loaded base's values")
		}
	})
}

// A base trained on one engine keeps its values in a model compiled on
// another, and fine-tuning there is seen by the first model.
func TestSharedBaseAcrossEngines(t *testing.T) {
	engines := twoEngines(t)
	x, y := smallData(64)
	for _, pair := range [][2]string{{engines[0], engines[1]}, {engines[1], engines[0]}} {
		t.Run(pair[0]+"_then_"+pair[1], func(t *testing.T) {
			base := transferBase(t)
			a, _ := underNewHead(t, base)
			compileOn(t, a, pair[0], &optimizers.Adam{}, 1)
			fitSilently(t, a, x, y, 2)
			trained := mustWeights(t, base)
			b, _ := underNewHead(t, base)
			compileOn(t, b, pair[1], &optimizers.Adam{}, 2)
			if !sameWeights(mustWeights(t, b)[:2], trained) {
				t.Fatal("compiling B on the other engine replaced the trained base")
			}
			aBefore := mustPredict(t, a, x)
			fitSilently(t, b, x, y, 1)
			if aw, bw := mustWeights(t, a), mustWeights(t, b); !sameWeights(aw[:2], bw[:2]) {
				t.Error("A and B see different values of the one base")
			}
			if maxDiff(mustPredict(t, a, x), aBefore) == 0 {
				t.Error("A's predictions did not change after B trained the shared base")
			}
		})
	}
}

// Keras predicts without compile: an uncompiled model's predictions equal
// the compiled model's on the same weights, and a model loaded with
// NoCompile predicts at once.
func TestPredictWithoutCompile(t *testing.T) {
	x, _ := smallData(40)
	m := mlp(t, 6, 3, "softmax")
	uncompiled := mustPredict(t, m, x)
	if len(uncompiled) != 40*3 {
		t.Fatalf("got %d values, want %d", len(uncompiled), 40*3)
	}
	path := filepath.Join(t.TempDir(), "m.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name()}); err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(mustPredict(t, m, x), uncompiled); d > 1e-6 {
			t.Errorf("compiled and uncompiled predictions differ by %g", d)
		}
		loaded, err := keras.LoadModel(path, keras.LoadOptions{NoCompile: true})
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(mustPredict(t, loaded, x), uncompiled); d > 1e-6 {
			t.Errorf("a NoCompile load predicts %g away from the saved model", d)
		}
	})
}

// Feature extraction as Keras users write it: a new model from a trained
// model's input to one of its layers' outputs shares that model's
// variables, and predicts the layer's activations without Compile.
func TestFeatureExtraction(t *testing.T) {
	x, y := smallData(64)
	base, err := keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, layers.Named("hidden", &layers.Dense{Units: 16, Activation: "tanh"}), &layers.Dense{Units: 3, Activation: "softmax"})
	if err != nil {
		t.Fatal(err)
	}
	compileOn(t, base, "", &optimizers.Adam{}, 1)
	fitSilently(t, base, x, y, 1)
	hidden, err := base.GetLayer("hidden")
	if err != nil {
		t.Fatal(err)
	}
	fe, err := keras.NewModel(base.Inputs()[0], hidden.Common().Output())
	if err != nil {
		t.Fatal(err)
	}
	got := mustPredict(t, fe, x)
	w := mustWeights(t, base)
	for r := range 64 {
		for j := range 16 {
			s := float64(w[1][j])
			for i := range 6 {
				s += float64(x.Data[r*6+i]) * float64(w[0][i*16+j])
			}
			if d := math.Abs(float64(got[r*16+j]) - math.Tanh(s)); d > 1e-5 {
				t.Fatalf("feature %d of sample %d is %g away from the hidden layer's activation", j, r, d)
			}
		}
	}
	if _, err := base.GetLayer("nope"); err == nil || !strings.Contains(err.Error(), "hidden") {
		t.Errorf("GetLayer of an unknown name: %v, want an error listing the layers", err)
	}
}
