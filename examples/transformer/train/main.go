// Command train trains the transformer classifier of Keras's example
// "Text classification with Transformer" (package transformer) on the
// synthetic reviews of examples/internal/textdata (is the review more
// positive than negative?), and prints the time per epoch and the test
// accuracy.
//
//	go run ./examples/transformer/train -epochs 3
//	go run $(go run ./cmd/kerasgo libtorch -flags) ./examples/transformer/train -backend libtorch
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/textdata"
	"github.com/kerasgo/kerasgo/examples/internal/timing"
	"github.com/kerasgo/kerasgo/examples/transformer"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
)

// config is Keras's example with a shorter review and vocabulary.
var config = transformer.Config{MaxLen: 64, VocabSize: 2000, EmbedDim: 32, NumHeads: 2, FFDim: 32, Classes: 2}

type options struct {
	backend     string
	epochs      int
	train, test int
	verbose     int
	seed        int64
	timer       *timing.Epochs
}

// run trains and returns the test accuracy.
func run(ctx context.Context, o options) (float64, error) {
	x, y := textdata.Reviews(o.train, config.MaxLen, config.VocabSize, 1)
	xt, yt := textdata.Reviews(o.test, config.MaxLen, config.VocabSize, 2)
	m, err := transformer.NewClassifier(config)
	if err != nil {
		return 0, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: "adam", Loss: "sparse_categorical_crossentropy", Metrics: []any{"accuracy"},
		Backend: o.backend, Seed: o.seed}); err != nil {
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
	flag.IntVar(&o.epochs, "epochs", 3, "training epochs")
	flag.IntVar(&o.verbose, "verbose", 1, "0 silent, 1 progress bar, 2 one line per epoch")
	flag.Int64Var(&o.seed, "seed", 1, "seed for weights, dropout and shuffling")
	flag.Parse()
	if o.verbose == 0 {
		o.verbose = keras.Silent
	}
	o.timer = &timing.Epochs{}
	acc, err := run(context.Background(), o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "transformer:", err)
		os.Exit(1)
	}
	fmt.Printf("Time per epoch: %.1f s\n", o.timer.Mean())
	fmt.Printf("Test accuracy: %.4f (chance: 0.5)\n", acc)
}
