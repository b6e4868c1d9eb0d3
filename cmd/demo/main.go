// Command demo trains the classic Keras MNIST examples with kerasgo: an MLP
// or the Keras MNIST convnet, on MNIST or Fashion-MNIST, on any engine.
//
//	go run ./cmd/demo -model cnn -dataset fashion -epochs 1
//
// It prints the model summary, Keras's progress output, and ends with
// "Test loss: ..." and "Test accuracy: ...".
//
//	go run ./cmd/demo -save model.keras   # train, then save in Keras's format
//	go run ./cmd/demo -load model.keras   # load a saved model (kerasgo's or Keras's) and evaluate it
//	go run ./cmd/demo -load model.keras -epochs 2 -save model.keras   # continue training where it stopped
//	go run ./cmd/demo -epochs 3 -plot history.png   # and plot the loss and accuracy curves
//
// Started by a launcher, it trains data parallel (see docs/distributed.md);
// rank 0 prints the progress and the test scores, and saves the model:
//
//	make libtorch && go build $(build/kerasgo libtorch -flags) -o demo ./cmd/demo
//	build/kerasgo launch -n 2 ./demo -epochs 1
//	torchrun --no_python --nproc-per-node 2 ./demo -epochs 1
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
	"github.com/kerasgo/kerasgo/keras/distribution"
	_ "github.com/kerasgo/kerasgo/keras/distribution/c10d"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
	"github.com/kerasgo/kerasgo/keras/plotting"
)

func main() {
	var (
		backendName = flag.String("backend", "", "engine, e.g. gorgonia or libtorch:cuda (default: $KERASGO_BACKEND, ~/.kerasgo/kerasgo.json, gorgonia)")
		modelName   = flag.String("model", "mlp", "mlp, cnn or resnet")
		dataset     = flag.String("dataset", "auto", "mnist, fashion, or auto (MNIST if it is here or can be downloaded, else Fashion-MNIST)")
		epochs      = flag.Int("epochs", 1, "training epochs")
		batchSize   = flag.Int("batch-size", 128, "samples per training step")
		dataDir     = flag.String("data-dir", "", "directory holding the four IDX files (default: cache, Debian's package, download)")
		verbose     = flag.Int("verbose", 1, "Keras verbosity: 0 silent, 1 progress bar, 2 one line per epoch")
		seed        = flag.Int64("seed", 1, "seed for weights, dropout and shuffling")
		save        = flag.String("save", "", "after training, save the model to this .keras file")
		load        = flag.String("load", "", "load this .keras file instead of building a model; evaluate it, and train it further only if -epochs is given")
		plotPath    = flag.String("plot", "", "after training, write the loss and accuracy curves to this PNG file")
	)
	flag.Parse()
	epochsGiven := false
	flag.Visit(func(f *flag.Flag) { epochsGiven = epochsGiven || f.Name == "epochs" })
	if *load != "" && !epochsGiven {
		*epochs = 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *verbose == 0 { // the command line keeps Keras's numbers: 0 is silent
		*verbose = keras.Silent
	}
	o := options{backend: *backendName, model: *modelName, dataset: *dataset, dataDir: *dataDir, epochs: *epochs,
		batch: *batchSize, verbose: *verbose, seed: *seed, save: *save, load: *load, plot: *plotPath}
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// options are the demo's flags.
type options struct {
	backend, model, dataset, dataDir, save, load, plot string
	epochs, batch, verbose                             int
	seed                                               int64
	dist                                               *distribution.DataParallel // when started by a launcher
}

func run(ctx context.Context, o options) error {
	if distribution.Launched() {
		dp, err := distribution.NewDataParallel(distribution.Config{})
		if err != nil {
			return err
		}
		defer dp.Close()
		o.dist = dp
		if !dp.IsChief() { // rank 0 speaks for the job
			devNull, err := os.Open(os.DevNull)
			if err != nil {
				return err
			}
			defer devNull.Close()
			stdout := os.Stdout
			os.Stdout = devNull
			defer func() { os.Stdout = stdout }()
		}
		fmt.Printf("Data parallel: rank %d of %d\n", dp.Rank(), dp.WorldSize())
	}
	ds, err := loadData(ctx, o.dataset, o.dataDir)
	if err != nil {
		return err
	}
	fmt.Printf("Dataset: %s (%d training, %d test images) from %s\n", ds.Title, ds.Train.Count, ds.Test.Count, ds.Source)
	model, err := buildOrLoad(o)
	if err != nil {
		return err
	}
	sel, _ := backend.Resolve(o.backend)
	fmt.Printf("Engine: %s (%s)\n", model.Backend().Name(), sel.Source)
	xTrain, yTrain, err := arrays(ds.Train)
	if err != nil {
		return err
	}
	xTest, yTest, err := arrays(ds.Test)
	if err != nil {
		return err
	}
	if o.epochs > 0 {
		start := time.Now()
		history, err := model.Fit(ctx, xTrain, yTrain, keras.FitOptions{
			Epochs: o.epochs, BatchSize: o.batch, ValidationSplit: 0.1, Verbose: o.verbose, Seed: o.seed,
		})
		if err != nil {
			return err
		}
		fmt.Printf("Training took %s\n", time.Since(start).Round(time.Millisecond))
		if o.plot != "" && (o.dist == nil || o.dist.IsChief()) {
			if err := plotting.History(history, o.plot); err != nil {
				return err
			}
			fmt.Printf("Wrote the training curves to %s\n", o.plot)
		}
	}
	if o.save != "" && (o.dist == nil || o.dist.IsChief()) {
		if err := model.Save(o.save); err != nil {
			return err
		}
		fmt.Printf("Saved the model to %s\n", o.save)
	}
	score, err := model.Evaluate(ctx, xTest, yTest, keras.EvaluateOptions{Verbose: keras.Silent, BatchSize: o.batch})
	if err != nil {
		return err
	}
	loss, _ := score.Get("loss")
	acc, _ := score.Get("accuracy")
	fmt.Printf("Test loss: %.4f\nTest accuracy: %.4f\n", loss, acc)
	return nil
}

// buildOrLoad returns the compiled model: loaded from -load, or built
// from -model.
func buildOrLoad(o options) (*keras.Model, error) {
	if o.load != "" {
		model, err := keras.LoadModel(o.load, keras.LoadOptions{Backend: o.backend, Distribution: o.dist})
		if err != nil {
			return nil, err
		}
		if model.Backend() == nil {
			return nil, fmt.Errorf("%s holds no training configuration (compile_config): the demo needs a compiled model", o.load)
		}
		fmt.Printf("Loaded %s\n", o.load)
		for _, note := range model.Notes() { // what differs from the file, as Keras warns
			fmt.Fprintf(os.Stderr, "warning: %s: %s\n", o.load, note)
		}
		return model, printSummary(model)
	}
	model, err := models.New(o.model)
	if err != nil {
		return nil, err
	}
	if err := printSummary(model); err != nil {
		return nil, err
	}
	var optimizer optimizers.Optimizer = &optimizers.Adam{}
	if o.model == "resnet" && o.epochs > 0 {
		// Keras's ResNet examples anneal the learning rate; a cosine decay
		// over the run's steps (54000 training samples after the 10%
		// validation split) reaches better accuracy in 2 epochs.
		batch := o.batch
		if batch <= 0 {
			batch = 32 // Fit's default
		}
		steps := float64((54000+batch-1)/batch) * float64(o.epochs)
		optimizer = &optimizers.Adam{Schedule: schedules.CosineDecay{InitialLearningRate: 2e-3, DecaySteps: steps}}
	}
	return model, model.Compile(keras.CompileOptions{
		Optimizer:    optimizer,
		Loss:         keras.Loss("sparse_categorical_crossentropy"),
		Metrics:      keras.Metrics("accuracy"),
		Backend:      o.backend,
		Seed:         o.seed,
		Distribution: o.dist,
	})
}

func printSummary(m *keras.Model) error {
	summary, err := m.Summary()
	if err != nil {
		return err
	}
	fmt.Print(summary)
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

// arrays wraps a split's images and labels for the model.
func arrays(s mnist.Split) (x, y keras.Array, err error) {
	if x, err = keras.ArrayOf(s.InputData()); err != nil {
		return x, y, err
	}
	y, err = keras.ArrayOf(s.LabelData())
	return x, y, err
}
