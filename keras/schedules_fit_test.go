package keras_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// A schedule sets the learning rate of every step from the iteration
// count: here 0.1 for the first 4 steps (one epoch) and exactly 0 after,
// so the weights move in epoch 1 and never again. Its rate cannot be set
// by a callback, as in Keras.
func TestScheduleDrivesEveryStep(t *testing.T) {
	x, y := smallData(64)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		sched := schedules.PiecewiseConstantDecay{Boundaries: []int64{3}, Values: []float64{0.1, 0}}
		m := compiledMLP(t, be, &optimizers.SGD{Schedule: sched})
		before, _ := m.GetWeights()
		var after1 [][]float32
		var rates []float64
		cb := &callbacks.Lambda{
			TrainBatchBegin: func(int) {
				lr, err := m.LearningRate()
				if err != nil {
					t.Fatal(err)
				}
				rates = append(rates, lr)
			},
			EpochEnd: func(epoch int, _ callbacks.Logs) {
				if epoch == 0 {
					after1, _ = m.GetWeights()
				}
			},
		}
		if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 3, BatchSize: 16, NoShuffle: true, Callbacks: []callbacks.Callback{cb}}); err != nil {
			t.Fatal(err)
		}
		want := []float64{0.1, 0.1, 0.1, 0.1, 0, 0, 0, 0, 0, 0, 0, 0}
		if len(rates) != len(want) {
			t.Fatalf("rates %v, want %v", rates, want)
		}
		for i := range want {
			if rates[i] != want[i] {
				t.Fatalf("rates %v, want %v", rates, want)
			}
		}
		final, _ := m.GetWeights()
		if maxDiff(before[0], after1[0]) == 0 {
			t.Error("the weights did not move at learning rate 0.1")
		}
		for i := range final {
			if d := maxDiff(final[i], after1[i]); d != 0 {
				t.Errorf("weight %d moved by %g at a scheduled learning rate of 0", i, d)
			}
		}
		if err := m.SetLearningRate(0.5); err == nil || !strings.Contains(err.Error(), "schedule") {
			t.Errorf("SetLearningRate with a schedule: %v, want an error saying the schedule sets it", err)
		}
	})
}

// A learning rate of exactly 0 is expressible (NewSGD; in a struct literal
// 0 means Keras's default), and the common options (clipping, weight decay)
// and a schedule survive Save and LoadModel.
func TestOptimizerSettingsSurviveSaving(t *testing.T) {
	x, y := smallData(64)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		frozen := compiledMLP(t, be, optimizers.NewSGD(0, 0))
		before, _ := frozen.GetWeights()
		if _, err := frozen.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 1, BatchSize: 16}); err != nil {
			t.Fatal(err)
		}
		after, _ := frozen.GetWeights()
		for i := range after {
			if d := maxDiff(before[i], after[i]); d != 0 {
				t.Errorf("NewSGD(0, 0) moved weight %d by %g", i, d)
			}
		}

		opt := &optimizers.AdamW{
			Schedule: schedules.CosineDecay{InitialLearningRate: 0.01, DecaySteps: 20, Alpha: 0.1},
			Options:  optimizers.Options{GlobalClipNorm: 1.5},
		}
		m := compiledMLP(t, be, opt)
		if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 2, BatchSize: 16, Seed: 4}); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "m.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		got, ok := loaded.Optimizer().(*optimizers.AdamW)
		if !ok {
			t.Fatalf("loaded optimizer %T, want *optimizers.AdamW", loaded.Optimizer())
		}
		if got.WeightDecay != 0.004 || got.GlobalClipNorm != 1.5 || got.Schedule == nil {
			t.Errorf("loaded AdamW %+v: want weight decay 0.004, global clip norm 1.5 and the schedule", got)
		}
		lrA, _ := m.LearningRate()
		lrB, _ := loaded.LearningRate()
		if lrA != lrB || lrA >= 0.01 {
			t.Errorf("learning rate after 8 steps: %v before saving, %v after loading (want equal, decayed below 0.01)", lrA, lrB)
		}
		// Training on from the loaded model equals training on in memory.
		for _, mm := range []*keras.Model{m, loaded} {
			if _, err := mm.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 1, BatchSize: 16, NoShuffle: true}); err != nil {
				t.Fatal(err)
			}
		}
		a, _ := m.GetWeights()
		b, _ := loaded.GetWeights()
		for i := range a {
			if d := maxDiff(a[i], b[i]); d > 1e-5 {
				t.Errorf("weight %d differs by %g between the in-memory and the loaded model after one more epoch", i, d)
			}
		}
	})
}

// An optimizer with EMA and gradient accumulation saves its averages and
// accumulators in Keras's order (the base optimizer's slots first) and
// loads them: training on from a loaded model equals training on in
// memory; Fit ends with the weights replaced by their averages.
func TestEMAAndAccumulationSurviveSaving(t *testing.T) {
	x, y := smallData(48)
	specs := optimizers.States(&optimizers.Adam{Options: optimizers.Options{UseEMA: true}}, []backend.Shape{{2}, {3}})
	pos, count := optimizers.SavedPositions(specs)
	var got []string
	for want := 0; want < count; want++ {
		for i, p := range pos {
			if p == want {
				got = append(got, specs[i].Name)
			}
		}
	}
	if s := strings.Join(got, " "); s != "average_0 average_1 m_0 v_0 m_1 v_1" {
		t.Errorf("saved optimizer variables in order %q, want Keras's: averages, then each parameter's slots", s)
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		opt := &optimizers.Adam{LearningRate: 0.01, Options: optimizers.Options{UseEMA: true, GradientAccumulationSteps: 3}}
		m := compiledMLP(t, be, opt)
		if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 2, BatchSize: 8, Seed: 2}); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "ema.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		if o, ok := loaded.Optimizer().(*optimizers.Adam); !ok || !o.UseEMA || o.GradientAccumulationSteps != 3 {
			t.Fatalf("loaded optimizer %+v", loaded.Optimizer())
		}
		for _, mm := range []*keras.Model{m, loaded} {
			if _, err := mm.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 1, BatchSize: 8, NoShuffle: true}); err != nil {
				t.Fatal(err)
			}
		}
		a, _ := m.GetWeights()
		b, _ := loaded.GetWeights()
		for i := range a {
			if d := maxDiff(a[i], b[i]); d > 1e-5 {
				t.Errorf("weight %d differs by %g between the in-memory and the loaded model", i, d)
			}
		}
	})
}
