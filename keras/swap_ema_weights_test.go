package keras_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// SwapEMAWeights validates with the moving averages and trains on from
// the weights, as Keras's callback: the last epoch's val_loss is the loss
// of the averages Fit ends with, training is the same as without the
// callback, and with SwapOnEpoch a callback after it sees the averages at
// each epoch's end; without UseEMA it fails Fit saying what to set.
func TestSwapEMAWeights(t *testing.T) {
	x, y := smallData(48)
	xVal, yVal := smallData(16)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		ctx := context.Background()
		train := func(cbs ...callbacks.Callback) (*keras.Model, *keras.History) {
			m := smallMLP(t, false)
			opt := &optimizers.SGD{LearningRate: 0.2, Options: optimizers.Options{UseEMA: true, EMAMomentum: 0.8}}
			if err := m.Compile(keras.CompileOptions{Optimizer: opt, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name(), Seed: 3}); err != nil {
				t.Fatal(err)
			}
			h, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 3, BatchSize: 8, Verbose: keras.Silent, NoShuffle: true,
				ValidationData: &keras.Data{X: xVal, Y: yVal}, Callbacks: cbs})
			if err != nil {
				t.Fatal(err)
			}
			return m, h
		}
		plain, plainHistory := train()
		swapped, history := train(&callbacks.SwapEMAWeights{})
		wantW, _ := plain.GetWeights()
		gotW, _ := swapped.GetWeights()
		for i := range wantW {
			for j := range wantW[i] {
				if wantW[i][j] != gotW[i][j] {
					t.Fatalf("weight %d[%d]: %v with the callback, %v without: swapping changed the training", i, j, gotW[i][j], wantW[i][j])
				}
			}
		}
		logs, err := swapped.Evaluate(ctx, xVal, yVal, keras.EvaluateOptions{BatchSize: 8})
		if err != nil {
			t.Fatal(err)
		}
		final, _ := logs.Get("loss")
		valLoss := history.Logs["val_loss"]
		plainValLoss := plainHistory.Logs["val_loss"]
		if math.Abs(valLoss[2]-final) > 1e-5 {
			t.Errorf("the last val_loss %v is not the loss of the averages Fit ends with, %v", valLoss[2], final)
		}
		if math.Abs(plainValLoss[2]-final) < 1e-6 {
			t.Errorf("without the callback the last val_loss %v is already the averages' %v: the test cannot tell", plainValLoss[2], final)
		}

		var seen [][]float32
		probe := &callbacks.Lambda{EpochEnd: func(int, callbacks.Logs) {}}
		probe.EpochEnd = func(int, callbacks.Logs) {
			w, err := probe.Model().GetWeights()
			if err != nil {
				t.Fatal(err)
			}
			seen = append(seen, w[0])
		}
		onEpoch, _ := train(&callbacks.SwapEMAWeights{SwapOnEpoch: true}, probe)
		last, _ := onEpoch.GetWeights()
		for j := range last[0] {
			if seen[2][j] != last[0][j] || last[0][j] != gotW[0][j] {
				t.Fatalf("with SwapOnEpoch, the weights after the last epoch (%v) are not the averages Fit ends with (%v, %v)", seen[2][j], last[0][j], gotW[0][j])
			}
		}

		m := smallMLP(t, false)
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Backend: be.Name()}); err != nil {
			t.Fatal(err)
		}
		_, err = m.Fit(ctx, x, y, keras.FitOptions{Epochs: 1, BatchSize: 8, Verbose: keras.Silent,
			ValidationData: &keras.Data{X: xVal, Y: yVal}, Callbacks: []callbacks.Callback{&callbacks.SwapEMAWeights{}}})
		if err == nil || !strings.Contains(err.Error(), "set Options.UseEMA") {
			t.Errorf("SwapEMAWeights without UseEMA: %v", err)
		}
	})
}
