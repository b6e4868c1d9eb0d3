package keras_test

import (
	"context"
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// Keras's "Writing a training loop from scratch": a hand-written loop of
// TrainOnBatch over the batches Fit makes (no shuffling, a last batch of
// 6) ends with Fit's weights, dropout included; TestOnBatch is Evaluate's
// loss on one batch and PredictOnBatch is Predict.
func TestTrainOnBatchLoopMatchesFit(t *testing.T) {
	const n, batch, epochs = 70, 16, 2
	x, y := smallData(n)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		build := func() *keras.Model {
			keras.ClearSession()
			m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 16, Activation: "relu"}, &layers.Dropout{Rate: 0.3}, &layers.Dense{Units: 3, Activation: "softmax"})
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy"), Backend: be.Name(), Seed: 9}); err != nil {
				t.Fatal(err)
			}
			return m
		}
		fitted := build()
		if _, err := fitted.Fit(context.Background(), x, y, keras.FitOptions{Epochs: epochs, BatchSize: batch, NoShuffle: true, Verbose: keras.Silent}); err != nil {
			t.Fatal(err)
		}
		looped := build()
		ctx := context.Background()
		for range epochs {
			for from := 0; from < n; from += batch {
				to := min(from+batch, n)
				logs, err := looped.TrainOnBatch(ctx, x.Rows(from, to), y.Rows(from, to), keras.OnBatchOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := logs.Get("accuracy"); !ok {
					t.Fatalf("TrainOnBatch logs %v have no accuracy", logs)
				}
			}
		}
		want, got := mustWeights(t, fitted), mustWeights(t, looped)
		for i := range want {
			if d := maxDiff(got[i], want[i]); d > 1e-6 {
				t.Errorf("weight %d: the TrainOnBatch loop differs from Fit by %g", i, d)
			}
		}
		ev, err := looped.Evaluate(ctx, x, y, keras.EvaluateOptions{BatchSize: n, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		tb, err := looped.TestOnBatch(ctx, x, y, keras.OnBatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"loss", "accuracy"} {
			a, _ := ev.Get(name)
			b, _ := tb.Get(name)
			if math.Abs(a-b) > 1e-6 {
				t.Errorf("TestOnBatch %s %v, Evaluate %v", name, b, a)
			}
		}
		p, err := looped.PredictOnBatch(ctx, x)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(p[0].Data, mustPredict(t, looped, x)); d > 1e-6 {
			t.Errorf("PredictOnBatch differs from Predict by %g", d)
		}
	})
}
