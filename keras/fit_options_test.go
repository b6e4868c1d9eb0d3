package keras_test

import (
	"context"
	"math"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// With sample weights, Evaluate's loss is sum(loss_i * w_i) / n as
// Keras's default reduction, checked against the loss computed here from
// Predict; ClassWeight is the same as the sample weights of each sample's
// class; Fit trains with either on every engine.
func TestSampleAndClassWeights(t *testing.T) {
	x, y := smallData(48)
	w := keras.Array{Shape: []int{48}, Data: make([]float32, 48)}
	classWeight := map[int]float64{0: 2, 1: 0.5} // class 2 weighs 1
	for i := range w.Data {
		switch y.Data[i] {
		case 0:
			w.Data[i] = 2
		case 1:
			w.Data[i] = 0.5
		default:
			w.Data[i] = 1
		}
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := compiledMLP(t, be, &optimizers.Adam{})
		pred, err := m.Predict(context.Background(), x, keras.PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		for i := 0; i < 48; i++ {
			p := math.Max(float64(pred.Data[i*3+int(y.Data[i])]), 1e-7)
			want -= math.Log(p) * float64(w.Data[i]) / 48
		}
		logs, err := m.Evaluate(context.Background(), x, y, keras.EvaluateOptions{Verbose: keras.Silent, SampleWeight: w, BatchSize: 16})
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := logs.Get("loss"); math.Abs(got-want) > 1e-5 {
			t.Errorf("weighted loss %v, computed from the predictions %v", got, want)
		}
		trained := map[string][][]float32{}
		for name, opts := range map[string]keras.FitOptions{
			"sample": {SampleWeight: w}, "class": {ClassWeight: classWeight},
		} {
			m := compiledMLP(t, be, &optimizers.Adam{})
			opts.Epochs, opts.BatchSize, opts.Seed, opts.Verbose = 2, 16, 3, keras.Silent
			if _, err := m.Fit(context.Background(), x, y, opts); err != nil {
				t.Fatal(err)
			}
			trained[name], _ = m.GetWeights()
		}
		for i := range trained["sample"] {
			if d := maxDiff(trained["sample"][i], trained["class"][i]); d > 1e-6 {
				t.Errorf("weight %d: ClassWeight trained differently from the equivalent SampleWeight (%g)", i, d)
			}
		}
		_, err = compiledMLP(t, be, &optimizers.Adam{}).Fit(context.Background(), x, y, keras.FitOptions{SampleWeight: w, ClassWeight: classWeight, Epochs: 1, Verbose: keras.Silent})
		wantErr(t, err, "SampleWeight or ClassWeight, not both")
		bad := keras.Array{Shape: []int{48}, Data: append([]float32{-1}, w.Data[1:]...)}
		_, err = compiledMLP(t, be, &optimizers.Adam{}).Fit(context.Background(), x, y, keras.FitOptions{SampleWeight: bad, Epochs: 1, Verbose: keras.Silent})
		wantErr(t, err, "SampleWeight[0] = -1", ">= 0")
		_, err = compiledMLP(t, be, &optimizers.Adam{}).Fit(context.Background(), x, y, keras.FitOptions{SampleWeight: keras.Array{Shape: []int{40}, Data: w.Data[:40]}, Epochs: 1, Verbose: keras.Silent})
		wantErr(t, err, "one weight per sample, shape (48,)")
	})
}

// StepsPerEpoch takes each epoch's batches in turn from passes over the
// data, an epoch stopping at the end of a pass, as Keras's EpochIterator;
// ValidationFreq validates every N epochs.
func TestStepsPerEpochAndValidationFreq(t *testing.T) {
	x, y := smallData(40) // 10 batches of 4
	m := smallMLP(t, false)
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy")}); err != nil {
		t.Fatal(err)
	}
	var perEpoch []int
	count := 0
	cb := &callbacks.Lambda{
		EpochBegin:    func(int) { count = 0 },
		TrainBatchEnd: func(int, callbacks.Logs) { count++ },
		EpochEnd:      func(int, callbacks.Logs) { perEpoch = append(perEpoch, count) },
	}
	h, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 5, BatchSize: 4, StepsPerEpoch: 4, ValidationFreq: 2,
		ValidationData: &keras.Data{X: x, Y: y}, Verbose: keras.Silent, Callbacks: []callbacks.Callback{cb}})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{4, 4, 2, 4, 4}
	for i := range want {
		if i >= len(perEpoch) || perEpoch[i] != want[i] {
			t.Fatalf("batches per epoch %v, want %v", perEpoch, want)
		}
	}
	if v := h.Logs["val_loss"]; len(v) != 2 || len(h.Logs["loss"]) != 5 {
		t.Errorf("with ValidationFreq 2 over 5 epochs, %d validations and %d epochs logged, want 2 and 5", len(v), len(h.Logs["loss"]))
	}
	_, err = m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, StepsPerEpoch: -1, Verbose: keras.Silent})
	wantErr(t, err, "StepsPerEpoch must be 0")
	_, err = m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, ValidationFreq: -2, Verbose: keras.Silent})
	wantErr(t, err, "ValidationFreq must be 0")
}
