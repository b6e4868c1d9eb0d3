// Command sentiment trains a Keras-style text classifier (Embedding +
// LSTM + Dense) on synthetic "reviews" (examples/internal/textdata):
// sequences of token ids in which a few positive and negative words are
// scattered among neutral ones, and the label says whether the positive
// words outnumber the negative. The model has to read the whole sequence
// and count, as a sentiment model does. No download: the data is
// generated from a seed.
//
//	go run ./examples/sentiment -epochs 5
//	go run $(go run ./cmd/kerasgo libtorch -flags) ./examples/sentiment -backend libtorch
package main

import (
	"context"
	"fmt"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/examples/internal/textdata"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// The reviews: token ids below vocab, steps per review (see textdata).
const (
	vocab = 500
	steps = 40
)

// newModel is Keras's Embedding + LSTM classifier, smaller.
func newModel() (*keras.Model, error) {
	return keras.NewSequential(
		&layers.InputLayer{Shape: []int{steps}},
		&layers.Embedding{InputDim: vocab, OutputDim: 16},
		&layers.LSTM{Units: 32},
		&layers.Dense{Units: 1, Activation: "sigmoid"},
	)
}

// run trains and returns the test accuracy.
func run(ctx context.Context, o example.Options) (float64, error) {
	x, y := textdata.Reviews(o.Train, steps, vocab, 1)
	xt, yt := textdata.Reviews(o.Test, steps, vocab, 2)
	m, err := newModel()
	if err != nil {
		return 0, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: optimizers.NewAdam(0.005, 0.9, 0.999, 1e-7), Loss: keras.Loss("binary_crossentropy"),
		Metrics: keras.Metrics("accuracy"), Backend: o.Backend, Seed: o.Seed}); err != nil {
		return 0, err
	}
	logs, err := example.FitAndEvaluate(ctx, m, o, x, y, xt, yt)
	if err != nil {
		return 0, err
	}
	acc, _ := logs.Get("accuracy")
	return acc, nil
}

func main() {
	o := example.ParseFlags(5, 4000, 1000)
	acc, err := run(context.Background(), o)
	example.Exit("sentiment", err)
	fmt.Printf("Time per epoch: %.1f s\n", o.Timer.Mean())
	fmt.Printf("Test accuracy: %.4f (chance: 0.5)\n", acc)
}
