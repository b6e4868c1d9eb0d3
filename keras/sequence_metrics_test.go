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

// paddedSequences returns n token-id sequences of steps ids (1..vocab-1)
// padded with 0 after a length of 1 to steps, and a target class per step.
func paddedSequences(n, steps, vocab, classes int) (ids []int32, targets []float32) {
	ids = make([]int32, n*steps)
	targets = make([]float32, n*steps)
	for i := range n {
		length := 1 + (i*5)%steps
		for s := range steps {
			if s < length {
				ids[i*steps+s] = int32(1 + (i*7+s*3)%(vocab-1))
			}
			targets[i*steps+s] = float32((i + s*2) % classes)
		}
	}
	return ids, targets
}

// With an output that carries a mask (Embedding's mask_zero, passed on
// by Dense), the loss and a per-sample metric are over the data steps
// alone, as Keras 3 computes them: the reference is the masked mean
// computed here from the model's own predictions, and it differs from
// the mean over every step.
func TestMaskedLossAndMetricsAreOverDataSteps(t *testing.T) {
	const n, steps, vocab, classes = 10, 6, 9, 4
	ids, targets := paddedSequences(n, steps, vocab, classes)
	x := keras.Must(keras.NewIntArray(ids, n, steps))
	y := keras.Must(keras.NewArray(targets, n, steps))
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := keras.Must(keras.NewSequential(
			&layers.InputLayer{Shape: []int{steps}, DType: backend.Int32},
			&layers.Embedding{InputDim: vocab, OutputDim: 5, MaskZero: true},
			&layers.Dense{Units: classes, Activation: "softmax"},
		))
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy"),
			Metrics: keras.Metrics("accuracy"), Backend: be.Name(), Seed: 7}); err != nil {
			t.Fatal(err)
		}
		// Batches of 4, 4 and 2: the epoch's value weighs each batch's
		// data steps.
		logs, err := m.Evaluate(context.Background(), x, y, keras.EvaluateOptions{BatchSize: 4, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		p, err := m.Predict(context.Background(), x, keras.PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var ceData, hitsData, data, ceAll float64
		for i, id := range ids {
			row := p.Data[i*classes : (i+1)*classes]
			best := 0
			for c := range row {
				if row[c] > row[best] {
					best = c
				}
			}
			ce := -math.Log(float64(row[int(targets[i])]))
			ceAll += ce
			if id != 0 {
				data++
				ceData += ce
				if float32(best) == targets[i] {
					hitsData++
				}
			}
		}
		// Keras's sum_over_batch_size with the mask: each batch's loss is
		// the mean over its data steps; Evaluate averages the batches'
		// losses weighted by their sizes.
		wantLoss := 0.0
		for from := 0; from < n; from += 4 {
			to := min(from+4, n)
			var sum, count float64
			for i := from * steps; i < to*steps; i++ {
				if ids[i] != 0 {
					row := p.Data[i*classes : (i+1)*classes]
					sum -= math.Log(float64(row[int(targets[i])]))
					count++
				}
			}
			wantLoss += sum / count * float64(to-from) / n
		}
		loss, _ := logs.Get("loss")
		acc, _ := logs.Get("accuracy")
		if math.Abs(loss-wantLoss) > 1e-5 {
			t.Errorf("loss %v, want the mean over the data steps %v (over every step it would be %v)", loss, wantLoss, ceAll/float64(n*steps))
		}
		if want := hitsData / data; math.Abs(acc-want) > 1e-6 {
			t.Errorf("accuracy %v, want the mean over the data steps %v", acc, want)
		}
		if math.Abs(wantLoss-ceAll/float64(n*steps)) < 1e-3 {
			t.Fatalf("the data cannot tell a masked loss from an unmasked one")
		}
	})
}

// Bad weights, masks and targets are errors naming both shapes, never a
// silently broadcast number: sample weights that follow no axis of the
// output, a mask of a custom layer that does not fit its output, and a
// metric given sparse targets it cannot compare with the output (Keras
// refuses the same).
func TestSequenceWeightAndMaskShapeErrors(t *testing.T) {
	const n, steps, vocab, classes = 6, 5, 9, 3
	ids, targets := paddedSequences(n, steps, vocab, classes)
	x := keras.Must(keras.NewIntArray(ids, n, steps))
	y := keras.Must(keras.NewArray(targets, n, steps))
	newModel := func(t *testing.T, be backend.Backend, extra ...layers.Layer) *keras.Model {
		ls := []layers.Layer{&layers.InputLayer{Shape: []int{steps}, DType: backend.Int32},
			&layers.Embedding{InputDim: vocab, OutputDim: 4, MaskZero: true}}
		ls = append(append(ls, extra...), &layers.Dense{Units: classes, Activation: "softmax"})
		m := keras.Must(keras.NewSequential(ls...))
		if err := m.Compile(keras.CompileOptions{Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy"), Backend: be.Name()}); err != nil {
			t.Fatal(err)
		}
		return m
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := newModel(t, be)
		sw := keras.Must(keras.NewArray(make([]float32, n*(steps+1)), n, steps+1))
		_, err := m.Evaluate(context.Background(), x, y, keras.EvaluateOptions{SampleWeight: sw, Verbose: keras.Silent})
		wantErr(t, err, "SampleWeight has shape (6, 6)", "(None, 5, 3)")

		m = newModel(t, be, &wrongMask{})
		_, err = m.Evaluate(context.Background(), x, y, keras.EvaluateOptions{Verbose: keras.Silent})
		wantErr(t, err, "mask", "(6, 4)", "(6, 5)")

		m = newModel(t, be)
		if err := m.Compile(keras.CompileOptions{Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("mae"), Backend: be.Name()}); err != nil {
			t.Fatal(err)
		}
		_, err = m.Evaluate(context.Background(), x, y, keras.EvaluateOptions{Verbose: keras.Silent})
		wantErr(t, err, "metric mae", "(6, 5)", "(6, 5, 3)")
	})
}

// wrongMask is a layer whose mask has one step fewer than its output.
type wrongMask struct{ layers.Base }

func (*wrongMask) ClassName() string { return "WrongMask" }

func (*wrongMask) Build(in []backend.Shape) (backend.Shape, error) { return in[0], nil }

// Call returns a new value: the input itself would carry the input's mask.
func (*wrongMask) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	return ctx.B.Mul(in[0], ctx.B.Scalar(2))
}

func (*wrongMask) ComputeMask(ctx *layers.Context, in, masks []backend.Value) backend.Value {
	s := masks[0].Shape()
	return ctx.B.Slice(masks[0], []int{0, 0}, []int{s[0], s[1] - 1})
}
