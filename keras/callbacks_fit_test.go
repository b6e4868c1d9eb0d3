package keras_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

func compiledMLP(t *testing.T, be backend.Backend, opt optimizers.Optimizer) *keras.Model {
	t.Helper()
	m := smallMLP(t, false)
	if err := m.Compile(keras.CompileOptions{Optimizer: opt, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy"), Backend: be.Name(), Seed: 11}); err != nil {
		t.Fatal(err)
	}
	return m
}

// The learning rate is an input of the compiled step: a callback that
// sets it to zero stops the weights from moving at the next step, without
// recompiling; setting the optimizer's field directly works the same way.
func TestLearningRateChangesTakeEffect(t *testing.T) {
	x, y := smallData(64)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, how := range []string{"SetLearningRate", "field"} {
			sgd := &optimizers.SGD{LearningRate: 0.1}
			m := compiledMLP(t, be, sgd)
			var after0 [][]float32
			cb := &callbacks.Lambda{
				EpochEnd: func(epoch int, _ callbacks.Logs) {
					if epoch == 0 {
						after0, _ = m.GetWeights()
						if how == "field" {
							sgd.LearningRate = 0
						} else if err := m.SetLearningRate(0); err != nil {
							t.Fatal(err)
						}
					}
				},
			}
			if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 3, BatchSize: 16, Callbacks: []callbacks.Callback{cb}}); err != nil {
				t.Fatal(err)
			}
			final, _ := m.GetWeights()
			for i := range final {
				if d := maxDiff(final[i], after0[i]); d != 0 {
					t.Errorf("%s: with learning rate 0 from epoch 2 on, weight %d still moved by %g", how, i, d)
				}
			}
			if lr, _ := m.LearningRate(); lr != 0 {
				t.Errorf("%s: LearningRate() = %v after setting 0", how, lr)
			}
		}
	})
}

// Options Keras rejects are errors naming the option; Epochs 0 trains
// nothing.
func TestFitOptionErrors(t *testing.T) {
	ctx := context.Background()
	x, y := smallData(16)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := compiledMLP(t, be, &optimizers.SGD{})
		_, err := m.Fit(ctx, x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: -3})
		wantErr(t, err, "Epochs must be 0 or more", "-3")
		_, err = m.Fit(ctx, x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 1, BatchSize: -5})
		wantErr(t, err, "BatchSize must be positive", "-5")
		_, err = m.Fit(ctx, x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 1, ValidationSplit: -0.1})
		wantErr(t, err, "ValidationSplit must be in [0, 1)")
		_, err = m.Fit(ctx, keras.Array{Shape: []int{0, 6}}, keras.Array{Shape: []int{0}}, keras.FitOptions{Verbose: keras.Silent, Epochs: 1})
		wantErr(t, err, "Fit got no samples")
		_, err = m.Evaluate(ctx, x, y, keras.EvaluateOptions{Verbose: keras.Silent, BatchSize: -1})
		wantErr(t, err, "BatchSize must be positive")
		_, err = m.Predict(ctx, x, keras.PredictOptions{BatchSize: -1})
		wantErr(t, err, "BatchSize must be positive")
		before, _ := m.GetWeights()
		h, err := m.Fit(ctx, x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 0})
		if err != nil {
			t.Fatal(err)
		}
		after, _ := m.GetWeights()
		if len(h.Epochs) != 0 || maxDiff(before[0], after[0]) != 0 {
			t.Errorf("Epochs 0 trained: %d epochs, weights moved by %g", len(h.Epochs), maxDiff(before[0], after[0]))
		}
	})
}

// EarlyStopping in a real Fit stops when val_loss stops improving and,
// with RestoreBestWeights, leaves the weights of the best epoch (checked
// against a copy taken at each epoch's end).
func TestEarlyStoppingInFit(t *testing.T) {
	x, y := smallData(96)
	vx, vy := smallData(40)
	vy.Data = append([]float32(nil), vy.Data...)
	for i := range vy.Data { // validation labels the model cannot learn: val_loss soon rises
		vy.Data[i] = float32((int(vy.Data[i]) + i) % 3)
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := compiledMLP(t, be, &optimizers.Adam{LearningRate: 0.05})
		es, err := callbacks.NewEarlyStopping(callbacks.EarlyStoppingOptions{Patience: 2, RestoreBestWeights: true})
		if err != nil {
			t.Fatal(err)
		}
		record, perEpoch := recordWeights(m)
		h, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 40, BatchSize: 16, ValidationData: &keras.Data{X: vx, Y: vy}, Callbacks: []callbacks.Callback{record, es}})
		if err != nil {
			t.Fatal(err)
		}
		if es.StoppedEpoch() == 0 || len(h.Epochs) != es.StoppedEpoch()+1 {
			t.Fatalf("did not stop early: %d epochs, StoppedEpoch %d", len(h.Epochs), es.StoppedEpoch())
		}
		best := argmin(h.Logs["val_loss"])
		if es.BestEpoch() != best {
			t.Errorf("BestEpoch %d, the history's best val_loss is at epoch %d", es.BestEpoch(), best)
		}
		final, _ := m.GetWeights()
		for i := range final {
			if d := maxDiff(final[i], (*perEpoch)[best][i]); d != 0 {
				t.Errorf("weight %d differs by %g from the best epoch's", i, d)
			}
		}
	})
}

// ModelCheckpoint with SaveBestOnly leaves exactly the best epoch's model
// at the path, and it loads.
func TestModelCheckpointInFit(t *testing.T) {
	x, y := smallData(96)
	vx, vy := smallData(40)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		dir := t.TempDir()
		path := filepath.Join(dir, "best.keras")
		m := compiledMLP(t, be, &optimizers.Adam{LearningRate: 0.05})
		ck, err := callbacks.NewModelCheckpoint(callbacks.ModelCheckpointOptions{Path: path, SaveBestOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		record, perEpoch := recordWeights(m)
		h, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 6, BatchSize: 16, ValidationData: &keras.Data{X: vx, Y: vy}, Callbacks: []callbacks.Callback{record, ck}})
		if err != nil {
			t.Fatal(err)
		}
		best := argmin(h.Logs["val_loss"])
		loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		w, _ := loaded.GetWeights()
		for i := range w {
			if d := maxDiff(w[i], (*perEpoch)[best][i]); d != 0 {
				t.Errorf("the checkpoint's weight %d differs by %g from the best epoch's (%d)", i, d, best+1)
			}
		}
		left, _ := filepath.Glob(filepath.Join(dir, "*"))
		if len(left) != 1 {
			t.Errorf("the checkpoint directory holds %v, want only best.keras", left)
		}
	})
}

// A NaN loss: without TerminateOnNaN Fit fails with ErrNaNLoss; with it Fit
// stops quietly. Either way the weights are those before the bad batch.
func TestTerminateOnNaN(t *testing.T) {
	x, y := smallData(32)
	bad := keras.Array{Shape: x.Shape, Data: append([]float32(nil), x.Data...)}
	bad.Data[0] = float32(math.NaN())
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, quiet := range []bool{false, true} {
			m := compiledMLP(t, be, &optimizers.SGD{})
			before, _ := m.GetWeights()
			var cbs []callbacks.Callback
			if quiet {
				cbs = append(cbs, &callbacks.TerminateOnNaN{Output: &discard{}})
			}
			_, err := m.Fit(context.Background(), bad, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 2, BatchSize: 32, NoShuffle: true, Callbacks: cbs})
			if quiet && err != nil {
				t.Errorf("with TerminateOnNaN: %v", err)
			}
			if !quiet && !errors.Is(err, keras.ErrNaNLoss) {
				t.Errorf("without TerminateOnNaN: error %v, want ErrNaNLoss", err)
			}
			after, _ := m.GetWeights()
			for i := range after {
				if d := maxDiff(before[i], after[i]); d != 0 {
					t.Errorf("quiet=%v: weight %d changed by %g although the only batch failed", quiet, i, d)
				}
			}
		}
	})
}

type discard struct{}

func (*discard) Write(p []byte) (int, error) { return len(p), nil }

// CSVLogger in a real Fit writes a header and one row per epoch.
func TestCSVLoggerInFit(t *testing.T) {
	x, y := smallData(32)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		path := filepath.Join(t.TempDir(), "log.csv")
		m := compiledMLP(t, be, &optimizers.Adam{})
		if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 3, BatchSize: 8, Callbacks: []callbacks.Callback{callbacks.NewCSVLogger(path, false)}}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := 0
		for _, c := range data {
			if c == '\n' {
				lines++
			}
		}
		if lines != 4 || string(data[:len("epoch,accuracy,loss\n")]) != "epoch,accuracy,loss\n" {
			t.Errorf("log file:\n%s", data)
		}
	})
}

// As in Keras, progress shows by default (Verbose's zero value is
// "auto"); Silent silences it; an unknown level is an error.
func TestVerboseDefault(t *testing.T) {
	x, y := smallData(32)
	m := smallMLP(t, false)
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Seed: 1}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: 8, Output: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Epoch 1/1") || !strings.Contains(out.String(), "4/4") {
		t.Errorf("Fit with the default Verbose printed %q, want a progress bar", out.String())
	}
	out.Reset()
	if _, err := m.Evaluate(context.Background(), x, y, keras.EvaluateOptions{Output: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "1/1 - ") || !strings.Contains(out.String(), "loss: ") {
		t.Errorf("Evaluate with the default Verbose printed %q, want Keras's result line", out.String())
	}
	out.Reset()
	if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: 8, Output: &out, Verbose: keras.Silent}); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Errorf("Fit with Silent printed %q", out.String())
	}
	_, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, Verbose: 3})
	wantErr(t, err, "Verbose 3", "keras.Silent")
}

// Seeds as in Keras: without one, initial weights and shuffling differ
// from run to run; with one, a run is reproducible.
func TestSeeds(t *testing.T) {
	x, y := smallData(64)
	train := func(compileSeed, fitSeed int64, weights [][]float32) [][]float32 {
		m := smallMLP(t, false)
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Seed: compileSeed}); err != nil {
			t.Fatal(err)
		}
		if weights != nil {
			if err := m.SetWeights(weights); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: 8, Seed: fitSeed, Verbose: keras.Silent}); err != nil {
			t.Fatal(err)
		}
		w, _ := m.GetWeights()
		return w
	}
	initial := func(seed int64) [][]float32 {
		m := smallMLP(t, false)
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: seed}); err != nil {
			t.Fatal(err)
		}
		w, _ := m.GetWeights()
		return w
	}
	if maxDiff(initial(0)[0], initial(0)[0]) == 0 {
		t.Error("two models compiled without a seed start from the same weights")
	}
	if maxDiff(initial(5)[0], initial(5)[0]) != 0 {
		t.Error("two models compiled with seed 5 start from different weights")
	}
	start := initial(5)
	if maxDiff(train(5, 0, start)[0], train(5, 0, start)[0]) == 0 {
		t.Error("two Fits without a seed shuffled the same way")
	}
	if maxDiff(train(5, 9, start)[0], train(5, 9, start)[0]) != 0 {
		t.Error("two Fits with seed 9 differ")
	}
}

// recordWeights returns a callback that keeps a copy of the weights at
// each epoch's end.
func recordWeights(m *keras.Model) (*callbacks.Lambda, *[][][]float32) {
	var perEpoch [][][]float32
	return &callbacks.Lambda{EpochEnd: func(int, callbacks.Logs) {
		w, _ := m.GetWeights()
		perEpoch = append(perEpoch, w)
	}}, &perEpoch
}

func argmin(v []float64) int {
	best := 0
	for i := range v {
		if v[i] < v[best] {
			best = i
		}
	}
	return best
}

// ReduceLROnPlateau in a real Fit lowers the rate the next epochs train
// with, and the History records it as "learning_rate", as Keras does.
func TestReduceLROnPlateauInFit(t *testing.T) {
	x, y := smallData(32)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := compiledMLP(t, be, &optimizers.SGD{LearningRate: 0.1})
		// Patience 0 and a MinDelta no epoch can beat: from the second epoch
		// on, every epoch halves the rate for the next.
		zero := 0
		plateau := mustPlateau(t, callbacks.ReduceLROnPlateauOptions{Monitor: "loss", Factor: 0.5, Patience: &zero, MinDelta: fp(10)})
		h, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 4, BatchSize: 8, Verbose: keras.Silent, Callbacks: []callbacks.Callback{plateau}})
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{0.1, 0.1, 0.05, 0.025}
		got := h.Logs["learning_rate"]
		if len(got) != len(want) {
			t.Fatalf("learning_rate logs %v, want %v", got, want)
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("epoch %d trained with learning rate %v, want %v", i+1, got[i], want[i])
			}
		}
	})
}

func mustPlateau(t *testing.T, o callbacks.ReduceLROnPlateauOptions) *callbacks.ReduceLROnPlateau {
	t.Helper()
	p, err := callbacks.NewReduceLROnPlateau(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func fp(v float64) *float64 { return &v }

// hookOrder records the hooks Fit calls, in order, and stops the
// learning at the start of batch 1.
type hookOrder struct {
	callbacks.Base
	events  []string
	weights [][][]float32 // at each batch's end
}

func (h *hookOrder) OnEpochBegin(int) { h.events = append(h.events, "epoch") }
func (h *hookOrder) OnTrainBatchBegin(b int) {
	h.events = append(h.events, fmt.Sprint("begin", b))
	if b == 1 {
		h.Model().SetLearningRate(0)
	}
}
func (h *hookOrder) OnTrainBatchEnd(b int, _ callbacks.Logs) {
	h.events = append(h.events, fmt.Sprint("end", b))
	w, _ := h.Model().GetWeights()
	h.weights = append(h.weights, w)
}
func (h *hookOrder) OnTestBegin(callbacks.Params)   { h.events = append(h.events, "test") }
func (h *hookOrder) OnEpochEnd(int, callbacks.Logs) { h.events = append(h.events, "epochEnd") }

// Batch hooks come in Keras's order: a batch's begin runs before its step
// (a learning rate set there applies to that very batch), its end after;
// validation follows the epoch's batches and precedes the epoch's end.
func TestHookOrder(t *testing.T) {
	x, y := smallData(16)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := compiledMLP(t, be, &optimizers.SGD{LearningRate: 0.1})
		h := &hookOrder{}
		if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: 6, ValidationSplit: 0.25, Verbose: keras.Silent, Callbacks: []callbacks.Callback{h}}); err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Join(h.events, " "), "epoch begin0 end0 begin1 end1 test epochEnd"; got != want {
			t.Errorf("hooks: %s, want %s", got, want)
		}
		for i := range h.weights[0] {
			if d := maxDiff(h.weights[0][i], h.weights[1][i]); d != 0 {
				t.Errorf("batch 1 trained (weight %d moved by %g) although its begin hook set the learning rate to 0", i, d)
			}
		}
	})
}
