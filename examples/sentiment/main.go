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
	"flag"
	"fmt"
	"os"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/textdata"
	"github.com/kerasgo/kerasgo/examples/internal/timing"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
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
		layers.Input(steps),
		&layers.Embedding{InputDim: vocab, OutputDim: 16},
		&layers.LSTM{Units: 32},
		&layers.Dense{Units: 1, Activation: "sigmoid"},
	)
}

// options are the command's settings.
type options struct {
	backend     string
	epochs      int
	train, test int
	verbose     int
	seed        int64
	timer       *timing.Epochs // records the epochs' times, if set
}

// run trains and returns the test accuracy.
func run(ctx context.Context, o options) (float64, error) {
	x, y := textdata.Reviews(o.train, steps, vocab, 1)
	xt, yt := textdata.Reviews(o.test, steps, vocab, 2)
	m, err := newModel()
	if err != nil {
		return 0, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: optimizers.NewAdam(0.005, 0.9, 0.999, 1e-7), Loss: "binary_crossentropy",
		Metrics: []any{"accuracy"}, Backend: o.backend, Seed: o.seed}); err != nil {
		return 0, err
	}
	timer := o.timer
	if timer == nil {
		timer = &timing.Epochs{}
	}
	if _, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: o.epochs, BatchSize: 32, Verbose: o.verbose, ValidationSplit: 0.1,
		Callbacks: []callbacks.Callback{timer}, Seed: o.seed}); err != nil {
		return 0, err
	}
	logs, err := m.Evaluate(ctx, xt, yt, keras.EvaluateOptions{Verbose: keras.Silent})
	if err != nil {
		return 0, err
	}
	acc, _ := logs.Get("accuracy")
	return acc, nil
}

func main() {
	o := options{train: 4000, test: 1000}
	flag.StringVar(&o.backend, "backend", "", "engine, e.g. gorgonia or libtorch (default: $KERASGO_BACKEND, then gorgonia)")
	flag.IntVar(&o.epochs, "epochs", 5, "training epochs")
	flag.IntVar(&o.verbose, "verbose", 1, "0 silent, 1 progress bar, 2 one line per epoch")
	flag.Int64Var(&o.seed, "seed", 1, "seed for weights and shuffling")
	flag.Parse()
	if o.verbose == 0 {
		o.verbose = keras.Silent
	}
	o.timer = &timing.Epochs{}
	acc, err := run(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "sentiment:", err)
		os.Exit(1)
	}
	fmt.Printf("Time per epoch: %.1f s\n", o.timer.Mean())
	fmt.Printf("Test accuracy: %.4f (chance: 0.5)\n", acc)
}
