// Command sentiment trains a Keras-style text classifier (Embedding +
// LSTM + Dense) on synthetic "reviews": sequences of token ids in which a
// few positive and negative words are scattered among neutral ones, and
// the label says whether the positive words outnumber the negative. The
// model has to read the whole sequence and count, as a sentiment model
// does. No download: the data is generated from a seed.
//
//	go run ./examples/sentiment -epochs 5
//	go run $(make -s libtorch-flags) ./examples/sentiment -backend libtorch
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/timing"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// The synthetic language: id 0 is padding (unused here), ids 1-10 are
// positive words, 11-20 negative, the rest neutral.
const (
	vocab     = 500
	steps     = 40
	positives = 10
	negatives = 10
)

// reviews returns n reviews of `steps` token ids and their labels (1 when
// positive words outnumber negative ones).
func reviews(n int, seed uint64) (keras.Array, keras.Array) {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := keras.Array{Shape: []int{n, steps}, Data: make([]float32, n*steps)}
	y := keras.Array{Shape: []int{n, 1}, Data: make([]float32, n)}
	for i := range n {
		row := x.Data[i*steps : (i+1)*steps]
		for t := range row {
			row[t] = float32(1 + positives + negatives + rng.IntN(vocab-1-positives-negatives))
		}
		pos, neg := rng.IntN(5), rng.IntN(5)
		for pos == neg {
			neg = rng.IntN(5)
		}
		for k, t := range rng.Perm(steps)[:pos+neg] {
			if k < pos {
				row[t] = float32(1 + rng.IntN(positives))
			} else {
				row[t] = float32(1 + positives + rng.IntN(negatives))
			}
		}
		if pos > neg {
			y.Data[i] = 1
		}
	}
	return x, y
}

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
	x, y := reviews(o.train, 1)
	xt, yt := reviews(o.test, 2)
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
