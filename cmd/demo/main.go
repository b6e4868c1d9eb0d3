// Command demo trains the classic Keras MNIST examples with kerasgo: an MLP
// or the Keras MNIST convnet, on MNIST or Fashion-MNIST, on any engine.
//
//	go run ./cmd/demo -model cnn -dataset fashion -epochs 1
//
// It prints the model summary, Keras's progress output, and ends with
// "Test loss: ..." and "Test accuracy: ...".
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/datasets/mnist"
	"github.com/kerasgo/kerasgo/internal/models"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
)

func main() {
	var (
		backendName = flag.String("backend", "", "engine, e.g. gorgonia or libtorch:cuda (default: $KERASGO_BACKEND, ~/.kerasgo/kerasgo.json, gorgonia)")
		modelName   = flag.String("model", "mlp", "mlp or cnn")
		dataset     = flag.String("dataset", "auto", "mnist, fashion, or auto (MNIST if it is here or can be downloaded, else Fashion-MNIST)")
		epochs      = flag.Int("epochs", 1, "training epochs")
		batchSize   = flag.Int("batch-size", 128, "samples per training step")
		dataDir     = flag.String("data-dir", "", "directory holding the four IDX files (default: cache, Debian's package, download)")
		verbose     = flag.Int("verbose", 1, "Keras verbosity: 0 silent, 1 progress bar, 2 one line per epoch")
		seed        = flag.Int64("seed", 1, "seed for weights, dropout and shuffling")
	)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *backendName, *modelName, *dataset, *dataDir, *epochs, *batchSize, *verbose, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, be, modelName, dataset, dataDir string, epochs, batch, verbose int, seed int64) error {
	ds, err := loadData(ctx, dataset, dataDir)
	if err != nil {
		return err
	}
	fmt.Printf("Dataset: %s (%d training, %d test images) from %s\n", ds.Title, ds.Train.Count, ds.Test.Count, ds.Source)
	model, err := models.New(modelName)
	if err != nil {
		return err
	}
	summary, err := model.Summary()
	if err != nil {
		return err
	}
	fmt.Print(summary)
	err = model.Compile(keras.CompileOptions{
		Optimizer: "adam",
		Loss:      "sparse_categorical_crossentropy",
		Metrics:   []any{"accuracy"},
		Backend:   be,
		Seed:      seed,
	})
	if err != nil {
		return err
	}
	sel, _ := backend.Resolve(be)
	fmt.Printf("Engine: %s (%s)\n", model.Backend().Name(), sel.Source)
	xTrain, yTrain := ds.Train.Arrays()
	xTest, yTest := ds.Test.Arrays()
	start := time.Now()
	_, err = model.Fit(ctx, xTrain, yTrain, keras.FitOptions{
		Epochs: epochs, BatchSize: batch, ValidationSplit: 0.1, Verbose: verbose, Seed: uint64(seed),
	})
	if err != nil {
		return err
	}
	fmt.Printf("Training took %s\n", time.Since(start).Round(time.Millisecond))
	score, err := model.Evaluate(ctx, xTest, yTest, keras.EvaluateOptions{BatchSize: batch})
	if err != nil {
		return err
	}
	loss, _ := score.Get("loss")
	acc, _ := score.Get("accuracy")
	fmt.Printf("Test loss: %.4f\nTest accuracy: %.4f\n", loss, acc)
	return nil
}

// loadData loads the dataset; "auto" prefers MNIST and falls back to
// Fashion-MNIST (which Debian packages) when MNIST is neither here nor
// downloadable.
func loadData(ctx context.Context, name, dir string) (*mnist.Dataset, error) {
	if name != "auto" {
		return mnist.Load(ctx, name, mnist.Options{Dir: dir, Download: true})
	}
	ds, err := mnist.Load(ctx, "mnist", mnist.Options{Dir: dir, Download: true, Timeout: 20 * time.Second})
	if err == nil {
		return ds, nil
	}
	if !errors.Is(err, mnist.ErrNotFound) {
		return nil, err
	}
	fmt.Printf("MNIST is not available (%v); using Fashion-MNIST instead\n", err)
	return mnist.Load(ctx, "fashion", mnist.Options{Dir: dir, Download: true})
}
