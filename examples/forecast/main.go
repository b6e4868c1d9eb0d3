// Command forecast trains a Keras-style time-series forecaster (LSTM +
// Dense) on a generated signal: two sines of different periods plus
// noise. From the last 30 values the model predicts the next one. As
// Keras's "Timeseries forecasting for weather prediction" does, the
// training and validation windows come from utils.TimeseriesDatasetFromArray
// (Keras's timeseries_dataset_from_array) over the series itself. It
// prints the test mean squared error beside two baselines: predicting
// the last value seen ("persistence") and predicting the mean.
//
//	go run ./examples/forecast -epochs 10
package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras/utils"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

const window = 30

// signal returns n values of the series starting at time t0.
func signal(n, t0 int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 5))
	s := make([]float64, n)
	for i := range s {
		t := float64(t0 + i)
		s[i] = math.Sin(2*math.Pi*t/25) + 0.5*math.Sin(2*math.Pi*t/7) + 0.1*rng.NormFloat64()
	}
	return s
}

// windows cuts the series into (window, 1) inputs and next-value targets.
func windows(s []float64) (keras.Array, keras.Array) {
	n := len(s) - window
	x := keras.Array{Shape: []int{n, window, 1}, Data: make([]float32, n*window)}
	y := keras.Array{Shape: []int{n, 1}, Data: make([]float32, n)}
	for i := range n {
		for t := range window {
			x.Data[i*window+t] = float32(s[i+t])
		}
		y.Data[i] = float32(s[i+window])
	}
	return x, y
}

// baselines returns the persistence and mean predictors' MSE.
func baselines(x, y keras.Array) (persistence, mean float64) {
	avg := 0.0
	for _, v := range y.Data {
		avg += float64(v)
	}
	avg /= float64(len(y.Data))
	for i, v := range y.Data {
		last := float64(x.Data[(i+1)*window-1])
		persistence += (float64(v) - last) * (float64(v) - last)
		mean += (float64(v) - avg) * (float64(v) - avg)
	}
	n := float64(len(y.Data))
	return persistence / n, mean / n
}

// result is the test MSE and the baselines'.
type result struct{ mse, persistence, mean float64 }

// series returns the values of s as a (len, 1) Array.
func series(s []float64) keras.Array {
	a := keras.Array{Shape: []int{len(s), 1}, Data: make([]float32, len(s))}
	for i, v := range s {
		a.Data[i] = float32(v)
	}
	return a
}

// windowsOf is the windows of 30 steps over s, each with the next value
// as its target, as a Dataset of batches of 32.
func windowsOf(s []float64, shuffle bool, seed int64) (*utils.TimeseriesDataset, error) {
	data := series(s)
	input, next := data.Rows(0, len(s)-window), data.Rows(window, len(s))
	return utils.TimeseriesDatasetFromArray(input, &next, utils.TimeseriesOptions{SequenceLength: window, BatchSize: 32, Shuffle: shuffle, Seed: seed})
}

func run(ctx context.Context, o example.Options) (result, error) {
	trainSteps := o.Train * 9 / 10 // the last tenth of the training series validates
	train, err := windowsOf(signal(trainSteps+window, 0, 1), true, max(o.Seed, 1))
	if err != nil {
		return result{}, err
	}
	val, err := windowsOf(signal(o.Train-trainSteps+window, trainSteps, 1), false, 0)
	if err != nil {
		return result{}, err
	}
	xt, yt := windows(signal(o.Test+window, o.Train+window, 2))
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{window, 1}}, &layers.LSTM{Units: 32}, &layers.Dense{Units: 1})
	if err != nil {
		return result{}, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: optimizers.NewAdam(0.01, 0.9, 0.999, 1e-7), Loss: keras.Loss("mse"), Backend: o.Backend, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	timer := o.Timer
	if timer == nil {
		timer = &example.Epochs{}
	}
	if _, err := m.Fit(ctx, keras.Batches{Dataset: train}, nil, keras.FitOptions{Epochs: o.Epochs, Verbose: o.Verbose,
		ValidationData: &keras.Data{X: keras.Batches{Dataset: val}}, Callbacks: []callbacks.Callback{timer}, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	logs, err := m.Evaluate(ctx, xt, yt, keras.EvaluateOptions{Verbose: keras.Silent})
	if err != nil {
		return result{}, err
	}
	r := result{}
	r.mse, _ = logs.Get("loss")
	r.persistence, r.mean = baselines(xt, yt)
	return r, nil
}

func main() {
	o := example.ParseFlags(10, 3000, 500)
	r, err := run(context.Background(), o)
	example.Exit("forecast", err)
	fmt.Printf("Time per epoch: %.1f s\n", o.Timer.Mean())
	fmt.Printf("Test MSE: %.4f (persistence %.4f, mean %.4f; noise floor 0.0100)\n", r.mse, r.persistence, r.mean)
}
