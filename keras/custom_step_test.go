package keras_test

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// builtinLikeStep is the first step of Keras's guide "Customizing what
// happens in fit()": call the model, the compiled loss, gradients of the
// trainable weights, the compiled optimizer, the compiled metrics.
func builtinLikeStep(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
	m := s.Model()
	pred := s.Call(m, true, d.X...)
	loss := s.ComputeLoss(d.Y, pred, d.SampleWeights)
	vars := m.TrainableWeights()
	s.Apply(nil, s.Gradients(loss, vars), vars)
	return append(keras.StepLogs{{Name: "loss", Value: loss}}, s.ComputeMetrics(d.Y, pred, d.SampleWeights)...), nil
}

// builtinLikeTestStep is the guide's test step.
func builtinLikeTestStep(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
	pred := s.Call(s.Model(), false, d.X...)
	loss := s.ComputeLoss(d.Y, pred, d.SampleWeights)
	return append(keras.StepLogs{{Name: "loss", Value: loss}}, s.ComputeMetrics(d.Y, pred, d.SampleWeights)...), nil
}

// A custom step that does what the built-in step does trains the same
// weights, logs the same values and validates the same, step for step.
func TestCustomStepMatchesBuiltin(t *testing.T) {
	x, y := smallData(80)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		run := func(custom bool) ([][]float32, *keras.History) {
			keras.ClearSession()
			m := smallMLP(t, true)
			opts := keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy"), Backend: be.Name(), Seed: 5}
			if custom {
				opts.TrainStep, opts.TestStep = builtinLikeStep, builtinLikeTestStep
			}
			if err := m.Compile(opts); err != nil {
				t.Fatal(err)
			}
			h, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 3, BatchSize: 16, Seed: 3, Verbose: keras.Silent,
				ValidationData: &keras.Data{X: x, Y: y}})
			if err != nil {
				t.Fatal(err)
			}
			return mustWeights(t, m), h
		}
		wantW, want := run(false)
		gotW, got := run(true)
		for i := range wantW {
			if d := maxDiff(gotW[i], wantW[i]); d > 1e-6 {
				t.Errorf("weight %d: custom step differs from the built-in by %g", i, d)
			}
		}
		for _, name := range []string{"loss", "accuracy", "val_loss", "val_accuracy"} {
			w, g := want.Logs[name], got.Logs[name]
			if len(w) != 3 || len(g) != 3 {
				t.Fatalf("%s: built-in logged %v, custom %v", name, w, g)
			}
			for e := range w {
				if math.Abs(w[e]-g[e]) > 1e-5 {
					t.Errorf("%s epoch %d: custom %v, built-in %v", name, e+1, g[e], w[e])
				}
			}
		}
	})
}

// Two optimizers in one step, the second part seeing the first part's
// update (a GAN's shape), checked against the same two SGD updates
// computed on the host: a = Dense(1) on 2 inputs, b = Dense(1) on a's
// output, both linear without bias; the step takes
// L1 = mean((a(x) - y)^2) to update a with rate r1, then
// L2 = mean((b(a(x)) - y)^2) with the new a to update b with rate r2.
func TestCustomStepTwoOptimizers(t *testing.T) {
	xs := []float32{1, 2, -1, 0.5, 0.3, -2, 1.5, 1}
	ys := []float32{1, -0.5, 0.25, 2}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		a, err := keras.NewSequential(&layers.InputLayer{Shape: []int{2}}, &layers.Dense{Units: 1, NoBias: true})
		if err != nil {
			t.Fatal(err)
		}
		b, err := keras.NewSequential(&layers.InputLayer{Shape: []int{1}}, &layers.Dense{Units: 1, NoBias: true})
		if err != nil {
			t.Fatal(err)
		}
		in := layers.Input(2)
		combined, err := keras.NewModel(in, layers.Apply(b, layers.Apply(a, in)))
		if err != nil {
			t.Fatal(err)
		}
		if err := a.SetWeights([][]float32{{0.5, -0.25}}); err != nil {
			t.Fatal(err)
		}
		if err := b.SetWeights([][]float32{{0.75}}); err != nil {
			t.Fatal(err)
		}
		const r1, r2 = 0.1, 0.05
		optA, optB := &optimizers.SGD{LearningRate: r1}, &optimizers.SGD{LearningRate: r2}
		mse := func(s *keras.Step, p, y backend.Value) backend.Value { return s.Mean(s.Square(s.Sub(p, y))) }
		step := func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
			l1 := mse(s, s.Call(a, true, d.X[0])[0], d.Y[0])
			s.Apply(optA, s.Gradients(l1, a.TrainableWeights()), a.TrainableWeights())
			l2 := mse(s, s.Call(combined, true, d.X[0])[0], d.Y[0])
			s.Apply(optB, s.Gradients(l2, b.TrainableWeights()), b.TrainableWeights())
			return keras.StepLogs{{Name: "a_loss", Value: l1}, {Name: "b_loss", Value: l2}}, nil
		}
		if err := combined.Compile(keras.CompileOptions{TrainStep: step, Backend: be.Name()}); err != nil {
			t.Fatal(err)
		}
		x := keras.Array{Shape: []int{4, 2}, Data: xs}
		y := keras.Array{Shape: []int{4, 1}, Data: ys}
		h, err := combined.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: 4, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		// The host's reference.
		w := []float64{0.5, -0.25}
		v := 0.75
		var l1, l2 float64
		g := []float64{0, 0}
		for i := range 4 {
			p := w[0]*float64(xs[2*i]) + w[1]*float64(xs[2*i+1])
			e := p - float64(ys[i])
			l1 += e * e / 4
			g[0] += 2 * e * float64(xs[2*i]) / 4
			g[1] += 2 * e * float64(xs[2*i+1]) / 4
		}
		w[0] -= r1 * g[0]
		w[1] -= r1 * g[1]
		gv := 0.0
		for i := range 4 {
			p := w[0]*float64(xs[2*i]) + w[1]*float64(xs[2*i+1])
			e := v*p - float64(ys[i])
			l2 += e * e / 4
			gv += 2 * e * p / 4
		}
		v -= r2 * gv
		got := mustWeights(t, combined)
		if math.Abs(float64(got[0][0])-w[0]) > 1e-6 || math.Abs(float64(got[0][1])-w[1]) > 1e-6 || math.Abs(float64(got[1][0])-v) > 1e-6 {
			t.Errorf("weights %v, want a=%v b=%v", got, w, v)
		}
		if d := math.Abs(h.Logs["a_loss"][0] - l1); d > 1e-5 {
			t.Errorf("a_loss %v, want %v", h.Logs["a_loss"][0], l1)
		}
		if d := math.Abs(h.Logs["b_loss"][0] - l2); d > 1e-5 {
			t.Errorf("b_loss %v, want %v", h.Logs["b_loss"][0], l2)
		}
	})
}

// Mistakes in a custom step are errors that name the step and the fix,
// never a panic.
func TestCustomStepErrors(t *testing.T) {
	x, y := smallData(32)
	other := &layers.Dense{Units: 2}
	if _, err := keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, other); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		step keras.StepFunc
		want string
	}{
		{"no logs", func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
			s.Call(s.Model(), true, d.X...)
			return nil, nil
		}, "returned no logs"},
		{"assigning a value of another shape", func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
			loss := s.Mean(s.Call(s.Model(), true, d.X...)[0])
			s.Assign(other.Weights()[0], loss)
			return keras.StepLogs{{Name: "loss", Value: loss}}, nil
		}, "give a value of the variable's shape"},
		{"optimizer on other variables", func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
			loss := s.Mean(s.Call(s.Model(), true, d.X...)[0])
			vars := s.Model().TrainableWeights()
			s.Apply(nil, s.Gradients(loss, vars[:2]), vars[:2])
			s.Apply(nil, s.Gradients(loss, vars[2:]), vars[2:])
			return keras.StepLogs{{Name: "loss", Value: loss}}, nil
		}, "was built for 2 variables"},
		{"non-scalar log", func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
			return keras.StepLogs{{Name: "pred", Value: s.Call(s.Model(), true, d.X...)[0]}}, nil
		}, "return a scalar"},
		{"nil value", func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
			var v backend.Value
			return keras.StepLogs{{Name: "loss", Value: s.Mean(v)}}, nil
		}, "nil Value"},
		{"panic", func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
			return keras.StepLogs{{Name: "loss", Value: s.Mean(d.X[3])}}, nil
		}, "train step panicked"},
		{"ComputeLoss without a loss", func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
			loss := s.ComputeLoss(d.Y, s.Call(s.Model(), true, d.X...), nil)
			return keras.StepLogs{{Name: "loss", Value: loss}}, nil
		}, "Compile got none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := smallMLP(t, true)
			if err := m.Compile(keras.CompileOptions{TrainStep: c.step}); err != nil {
				t.Fatal(err)
			}
			_, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: 16, Verbose: keras.Silent})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "train step") {
				t.Fatalf("got %v, want an error of the train step containing %q", err, c.want)
			}
		})
	}
	t.Run("optimizer in a test step", func(t *testing.T) {
		m := smallMLP(t, true)
		test := func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
			loss := s.Mean(s.Call(s.Model(), false, d.X...)[0])
			vars := s.Model().TrainableWeights()
			s.Apply(nil, s.Gradients(loss, vars), vars)
			return keras.StepLogs{{Name: "loss", Value: loss}}, nil
		}
		if err := m.Compile(keras.CompileOptions{Loss: keras.Loss("sparse_categorical_crossentropy"), TestStep: test}); err != nil {
			t.Fatal(err)
		}
		_, err := m.Evaluate(context.Background(), x, y, keras.EvaluateOptions{Verbose: keras.Silent})
		if err == nil || !strings.Contains(err.Error(), "test step") {
			t.Fatalf("got %v, want an error saying a test step cannot apply an optimizer", err)
		}
	})
}

// twoPartModel is a GAN-shaped model: part a, then part b on a's output,
// each trained by its own Adam in one custom step (b's loss sees a's
// update).
func twoPartModel(t *testing.T, engine string) *keras.Model {
	t.Helper()
	keras.ClearSession() // the same layer names, so the same initial weights
	a, err := keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 8, Activation: "tanh"}, &layers.Dropout{Rate: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	b, err := keras.NewSequential(&layers.InputLayer{Shape: []int{8}}, &layers.Dense{Units: 3, Activation: "softmax"})
	if err != nil {
		t.Fatal(err)
	}
	in := layers.Input(6)
	m, err := keras.NewModel(in, layers.Apply(b, layers.Apply(a, in)))
	if err != nil {
		t.Fatal(err)
	}
	optA, optB := &optimizers.Adam{LearningRate: 0.01}, &optimizers.Adam{LearningRate: 0.02}
	loss := losses.SparseCategoricalCrossentropy{}
	step := func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
		la := loss.Compute(s, d.Y[0], s.Call(m, true, d.X[0])[0])
		s.Apply(optA, s.Gradients(la, a.TrainableWeights()), a.TrainableWeights())
		lb := loss.Compute(s, d.Y[0], s.Call(m, true, d.X[0])[0])
		s.Apply(optB, s.Gradients(lb, b.TrainableWeights()), b.TrainableWeights())
		return keras.StepLogs{{Name: "a_loss", Value: la}, {Name: "b_loss", Value: lb}}, nil
	}
	if err := m.Compile(keras.CompileOptions{TrainStep: step, Backend: engine, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	return m
}

// BackupAndRestore resumes a custom step with two optimizers exactly:
// both optimizers' state is in the backup ("optimizer_1", "optimizer_2"),
// so a run interrupted mid-epoch and started again ends with the weights
// of an uninterrupted run.
func TestCustomStepBackupAndRestore(t *testing.T) {
	x, y := smallData(96)
	opts := keras.FitOptions{Verbose: keras.Silent, Epochs: 3, BatchSize: 8, Seed: 5}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		whole := twoPartModel(t, be.Name())
		if _, err := whole.Fit(context.Background(), x, y, opts); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "backup")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		crash := cancelAt(cancel, 1, 7)
		o := opts
		o.Callbacks = []callbacks.Callback{&callbacks.BackupAndRestore{Dir: dir, SaveFreq: 3}, crash}
		if _, err := twoPartModel(t, be.Name()).Fit(ctx, x, y, o); !errors.Is(err, context.Canceled) {
			t.Fatalf("the interrupted Fit returned %v, want context.Canceled", err)
		}
		resumed := twoPartModel(t, be.Name())
		o.Callbacks = []callbacks.Callback{&callbacks.BackupAndRestore{Dir: dir, SaveFreq: 3}}
		if _, err := resumed.Fit(context.Background(), x, y, o); err != nil {
			t.Fatal(err)
		}
		want, got := mustWeights(t, whole), mustWeights(t, resumed)
		for i := range want {
			if d := maxDiff(got[i], want[i]); d > 1e-5 {
				t.Errorf("weight %d: the resumed run differs from the uninterrupted one by %g", i, d)
			}
		}
	})
}
