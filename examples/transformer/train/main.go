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
	"fmt"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/examples/internal/textdata"
	"github.com/kerasgo/kerasgo/examples/transformer"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// config is Keras's example with a shorter review and vocabulary.
var config = transformer.Config{MaxLen: 64, VocabSize: 2000, EmbedDim: 32, NumHeads: 2, FFDim: 32, Classes: 2}

// run trains and returns the test accuracy.
func run(ctx context.Context, o example.Options) (float64, error) {
	x, y := textdata.Reviews(o.Train, config.MaxLen, config.VocabSize, 1)
	xt, yt := textdata.Reviews(o.Test, config.MaxLen, config.VocabSize, 2)
	m, err := transformer.NewClassifier(config)
	if err != nil {
		return 0, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy"),
		Backend: o.Backend, Seed: o.Seed}); err != nil {
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
	o := example.ParseFlags(3, 4000, 1000)
	acc, err := run(context.Background(), o)
	example.Exit("transformer", err)
	fmt.Printf("Time per epoch: %.1f s\n", o.Timer.Mean())
	fmt.Printf("Test accuracy: %.4f (chance: 0.5)\n", acc)
}
