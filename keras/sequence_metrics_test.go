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

// A metric over (batch, steps) targets is the mean over every step, as
// Keras's Mean metrics reduce each sample's values (issue 44's ten-line
// model: IntInput(10) -> Embedding -> Dense(5, softmax) evaluated to an
// accuracy of 4, the sum over the steps). The reference is the mean
// computed here from the model's own predictions.
func TestSequenceMetricsAreMeansOverSteps(t *testing.T) {
	const n, steps, classes = 12, 10, 5
	ids := make([]int32, n*steps)
	targets := make([]float32, n*steps)
	for i := range ids {
		ids[i] = int32((i*7 + 3) % 20)
		targets[i] = float32((i * 3) % classes)
	}
	x := keras.Must(keras.NewIntArray(ids, n, steps))
	y := keras.Must(keras.NewArray(targets, n, steps))
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := keras.Must(keras.NewSequential(
			&layers.InputLayer{Shape: []int{steps}, DType: backend.Int32},
			&layers.Embedding{InputDim: 20, OutputDim: 8},
			&layers.Dense{Units: classes, Activation: "softmax"},
		))
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"),
			Metrics: keras.Metrics("accuracy"), Backend: be.Name(), Seed: 4}); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 3, BatchSize: 4, Verbose: keras.Silent}); err != nil {
			t.Fatal(err)
		}
		logs, err := m.Evaluate(context.Background(), x, y, keras.EvaluateOptions{BatchSize: 5})
		if err != nil {
			t.Fatal(err)
		}
		p, err := m.Predict(context.Background(), x, keras.PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		hits := 0.0
		for i := range targets {
			row := p.Data[i*classes : (i+1)*classes]
			best := 0
			for c := range row {
				if row[c] > row[best] {
					best = c
				}
			}
			if float32(best) == targets[i] {
				hits++
			}
		}
		acc, _ := logs.Get("accuracy")
		if want := hits / float64(len(targets)); acc > 1 || math.Abs(acc-want) > 1e-6 {
			t.Errorf("accuracy %v, want the mean over every step %v", acc, want)
		}
	})
}
