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
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
)

// regularizedModel is 6 -> Dense(5, tanh; L2 kernel, L1 bias, L1L2
// activity, MaxNorm kernel, NonNeg bias) -> ActivityRegularization ->
// Dense(3) (no penalty), with mse.
func regularizedModel(t *testing.T, be string) (*keras.Model, *layers.Dense, *layers.Dense) {
	t.Helper()
	hidden := &layers.Dense{Units: 5, Activation: "tanh", KernelRegularizer: regularizers.L2{L2: 0.03}, BiasRegularizer: regularizers.L1{L1: 0.2},
		KernelConstraint: constraints.MaxNorm{MaxValue: 0.5}, BiasConstraint: constraints.NonNeg{},
		Base: layers.Base{ActivityRegularizer: regularizers.L1L2{L1: 0.01, L2: 0.02}}}
	out := &layers.Dense{Units: 3}
	m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, hidden, &layers.ActivityRegularization{L1: 0.05, L2: 0.1}, out))
	keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Backend: be, Seed: 4}))
	return m, hidden, out
}

// The loss Evaluate reports is the compiled loss plus every penalty, as
// Keras's model.losses adds them: each regularized weight's penalty once,
// and each activity penalty divided by the batch size (here computed on
// the host from the weights and the hidden activations); Fit's step then
// applies the constraints to the new weights (MaxNorm's column norms at
// most 0.5, NonNeg's biases at least 0, each equal to projecting the
// unconstrained update). On every engine.
func TestRegularizersAndConstraintsInEvaluateAndFit(t *testing.T) {
	x, labels := smallData(16)
	y := keras.Array{Shape: []int{16, 3}, Data: make([]float32, 48)}
	for i, l := range labels.Data {
		y.Data[i*3+int(l)] = 1
	}
	ctx := context.Background()
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m, hidden, _ := regularizedModel(t, be.Name())
		w := keras.Must(m.GetWeights()) // kernel, bias, kernel, bias
		pred := keras.Must(m.Predict(ctx, x, keras.PredictOptions{}))
		mse := 0.0
		for i, p := range pred.Data {
			d := float64(p - y.Data[i])
			mse += d * d
		}
		mse /= float64(len(pred.Data))
		// The hidden activations, for the activity penalties.
		features := keras.Must(keras.NewModel(m.Inputs()[0], hidden.Output()))
		h := keras.Must(features.Predict(ctx, x, keras.PredictOptions{}))
		sumAbs, sumSq := func(v []float32) float64 {
			s := 0.0
			for _, f := range v {
				s += math.Abs(float64(f))
			}
			return s
		}, func(v []float32) float64 {
			s := 0.0
			for _, f := range v {
				s += float64(f) * float64(f)
			}
			return s
		}
		batch := 16.0
		penalty := 0.03*sumSq(w[0]) + 0.2*sumAbs(w[1]) + // weights
			(0.01*sumAbs(h.Data)+0.02*sumSq(h.Data))/batch + // Dense's activity
			(0.05*sumAbs(h.Data)+0.1*sumSq(h.Data))/batch // ActivityRegularization on the same tensor
		logs, err := m.Evaluate(ctx, keras.Arrays{x}, keras.Arrays{y}, keras.EvaluateOptions{BatchSize: 16})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := lossOf(t, logs), mse+penalty; math.Abs(got-want) > 1e-5*math.Max(1, want) {
			t.Fatalf("Evaluate's loss %.7g, want the mse %.7g plus the penalties %.7g = %.7g", got, mse, penalty, want)
		}
		// Predict ignores the penalties.
		if again := keras.Must(m.Predict(ctx, x, keras.PredictOptions{})); maxAbs(again.Data, pred.Data) != 0 {
			t.Fatal("Predict changed")
		}

		// One SGD step, then the constraints hold and equal projecting
		// what the same step gives without them.
		free, _, _ := regularizedModel(t, be.Name())
		for _, l := range free.Layers() {
			if d, ok := l.(*layers.Dense); ok {
				d.KernelConstraint, d.BiasConstraint = nil, nil
			}
		}
		keras.MustOK(free.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Backend: be.Name(), Seed: 4}))
		keras.MustOK(free.SetWeights(w))
		for _, model := range []*keras.Model{m, free} {
			if _, err := model.TrainOnBatch(ctx, keras.Arrays{x}, keras.Arrays{y}, keras.OnBatchOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		got, unconstrained := keras.Must(m.GetWeights()), keras.Must(free.GetWeights())
		kernel, bias := got[0], got[1]
		for j := range 5 {
			n, un := 0.0, 0.0
			for i := range 6 {
				n += float64(kernel[i*5+j]) * float64(kernel[i*5+j])
				un += float64(unconstrained[0][i*5+j]) * float64(unconstrained[0][i*5+j])
			}
			n, un = math.Sqrt(n), math.Sqrt(un)
			scale := math.Min(un, 0.5) / (1e-7 + un)
			for i := range 6 {
				if want := float64(unconstrained[0][i*5+j]) * scale; math.Abs(float64(kernel[i*5+j])-want) > 1e-6 {
					t.Fatalf("kernel[%d,%d] = %g, want the unconstrained %g scaled by MaxNorm to %g", i, j, kernel[i*5+j], unconstrained[0][i*5+j], want)
				}
			}
			if n > 0.5+1e-6 {
				t.Fatalf("column %d of the kernel has norm %g after MaxNorm{0.5}", j, n)
			}
		}
		for j, b := range bias {
			if want := math.Max(float64(unconstrained[1][j]), 0); math.Abs(float64(b)-want) > 1e-7 {
				t.Fatalf("bias[%d] = %g, want max(%g, 0)", j, b, unconstrained[1][j])
			}
		}
	})
}

func lossOf(t *testing.T, logs callbacks.Logs) float64 {
	t.Helper()
	v, ok := logs.Get("loss")
	if !ok {
		t.Fatalf("no loss in %v", logs.Names())
	}
	return v
}

func maxAbs(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

// A frozen layer's weights are not penalised (Keras regularizes
// trainable_weights only); its activity penalty still counts.
func TestFrozenWeightsAreNotPenalised(t *testing.T) {
	x, y := smallData(8)
	ctx := context.Background()
	loss := func(freeze bool) float64 {
		base := &layers.Dense{Units: 4, KernelRegularizer: regularizers.L2{L2: 10}}
		m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, base, &layers.Dense{Units: 3, Activation: "softmax"}))
		base.SetTrainable(!freeze)
		keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Seed: 1}))
		logs := keras.Must(m.Evaluate(ctx, keras.Arrays{x}, keras.Arrays{y}, keras.EvaluateOptions{}))
		return lossOf(t, logs)
	}
	trained, frozen := loss(false), loss(true)
	if !(trained > frozen+1) {
		t.Fatalf("loss %g with the penalised layer trainable, %g frozen: want the penalty (L2 10) only in the first", trained, frozen)
	}
}

// Regularizers and constraints survive Save and LoadModel (Keras's keys
// and classes in config.json), and the loaded model's loss equals the
// saved one's.
func TestRegularizersSaveAndLoad(t *testing.T) {
	m, _, _ := regularizedModel(t, "")
	path := filepath.Join(t.TempDir(), "m.keras")
	keras.MustOK(m.Save(path))
	back, err := keras.LoadModel(path, keras.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := back.Layers()[1].(*layers.Dense) // after the InputLayer
	if d.KernelRegularizer != (regularizers.L2{L2: 0.03}) || d.BiasRegularizer != (regularizers.L1{L1: 0.2}) ||
		d.ActivityRegularizer != (regularizers.L1L2{L1: 0.01, L2: 0.02}) || d.BiasConstraint != (constraints.NonNeg{}) {
		t.Fatalf("loaded Dense has %#v %#v %#v %#v", d.KernelRegularizer, d.BiasRegularizer, d.ActivityRegularizer, d.BiasConstraint)
	}
	if c, ok := d.KernelConstraint.(constraints.MaxNorm); !ok || c.MaxValue != 0.5 {
		t.Fatalf("loaded kernel constraint %#v", d.KernelConstraint)
	}
	if a := back.Layers()[2].(*layers.ActivityRegularization); a.L1 != 0.05 || a.L2 != 0.1 {
		t.Fatalf("loaded ActivityRegularization %+v", a)
	}
	x, y := smallData(8)
	ctx := context.Background()
	yy := keras.Array{Shape: []int{8, 3}, Data: make([]float32, 24)}
	for i, l := range y.Data {
		yy.Data[i*3+int(l)] = 1
	}
	a := keras.Must(m.Evaluate(ctx, keras.Arrays{x}, keras.Arrays{yy}, keras.EvaluateOptions{}))
	b := keras.Must(back.Evaluate(ctx, keras.Arrays{x}, keras.Arrays{yy}, keras.EvaluateOptions{}))
	if la, lb := lossOf(t, a), lossOf(t, b); math.Abs(la-lb) > 1e-6 {
		t.Fatalf("loss %g before saving, %g after loading", la, lb)
	}
}

// Settings a weight cannot take are errors naming the layer and the
// setting.
func TestRegularizerErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		layer layers.Layer
		want  string
	}{
		{"bias penalty without a bias", &layers.Dense{Units: 2, NoBias: true, BiasRegularizer: regularizers.L2{}}, "use_bias=False"},
		{"orthogonal on a conv kernel", &layers.Conv1D{Filters: 2, KernelSize: 2, KernelRegularizer: regularizers.OrthogonalRegularizer{}}, "kernel_regularizer: regularizer OrthogonalRegularizer takes a matrix"},
		{"negative factor", &layers.Dense{Units: 2, KernelRegularizer: regularizers.L1{L1: -1}}, "kernel_regularizer: regularizer L1: l1 = -1"},
		{"axis out of range", &layers.Dense{Units: 2, KernelConstraint: constraints.UnitNorm{Axis: []int{3}}}, "kernel_constraint: constraint UnitNorm: axis [3]"},
		{"orthogonal activity on a sequence", &layers.Dense{Units: 2, Base: layers.Base{ActivityRegularizer: regularizers.OrthogonalRegularizer{}}}, "activity_regularizer"},
		{"NaN activity", &layers.ActivityRegularization{L2: math.NaN()}, "L2 is NaN: give a finite number"},
	} {
		out := layers.Apply(c.layer, layers.Input(3, 4))
		if err := out.Err(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}
