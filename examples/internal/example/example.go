package example

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
)

// Options are the settings every example takes.
type Options struct {
	Backend     string
	Epochs      int
	Train, Test int // samples generated for training and for the test
	Verbose     int
	Seed        int64
	Timer       *Epochs // records the epochs' times; nil: a fresh one
}

// ParseFlags reads -backend, -epochs (default epochs), -verbose and -seed
// from the command line into Options for train and test samples; verbose
// 0 means silent, as Keras's verbose=0.
func ParseFlags(epochs, train, test int) Options {
	o := Options{Train: train, Test: test, Timer: &Epochs{}}
	flag.StringVar(&o.Backend, "backend", "", "engine, e.g. gorgonia or libtorch (default: $KERASGO_BACKEND, then gorgonia)")
	flag.IntVar(&o.Epochs, "epochs", epochs, "training epochs")
	flag.IntVar(&o.Verbose, "verbose", 1, "0 silent, 1 progress bar, 2 one line per epoch")
	flag.Int64Var(&o.Seed, "seed", 1, "seed for weights, dropout and shuffling")
	flag.Parse()
	if o.Verbose == 0 {
		o.Verbose = keras.Silent
	}
	return o
}

// FitAndEvaluate trains the compiled m on (x, y) as every example does
// (batch 32, 10% held out for validation, timed by o.Timer) and returns
// its logs on the test data (xt, yt).
func FitAndEvaluate(ctx context.Context, m *keras.Model, o Options, x, y, xt, yt keras.Array) (callbacks.Logs, error) {
	timer := o.Timer
	if timer == nil {
		timer = &Epochs{}
	}
	if _, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: o.Epochs, BatchSize: 32, Verbose: o.Verbose, ValidationSplit: 0.1,
		Callbacks: []callbacks.Callback{timer}, Seed: o.Seed}); err != nil {
		return nil, err
	}
	return m.Evaluate(ctx, xt, yt, keras.EvaluateOptions{Verbose: keras.Silent})
}

// Exit prints err, prefixed with the command's name, and exits 1 when err
// is not nil.
func Exit(name string, err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}
