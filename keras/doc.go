// Package keras is Keras's way of building and training neural networks,
// in Go, over more than one engine.
//
// Define a model, compile it, fit it:
//
//	model, err := keras.NewSequential(
//		&layers.InputLayer{Shape: []int{28, 28, 1}},
//		&layers.Flatten{},
//		&layers.Dense{Units: 128, Activation: "relu"},
//		&layers.Dense{Units: 10, Activation: "softmax"},
//	)
//	err = model.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy")})
//	history, err := model.Fit(ctx, x, y, keras.FitOptions{Epochs: 5, BatchSize: 128, Verbose: 1})
//
// The engine underneath is chosen at Compile (see CompileOptions.Backend and
// package backend): the same model code runs on every engine. Sequential is
// sugar over the functional API (NewModel with layers.Input and
// layers.Apply): one graph executor serves both.
//
// # Variables belong to layers
//
// As in Keras, a layer's variables (layers.Weight) belong to the layer,
// and every model that contains the layer uses them: a base trained in
// one model keeps its values under a new head in another, compiling a
// model never re-initialises a variable that has a value, and training
// any model that contains a layer changes what every other model
// containing it predicts, saves and returns from GetWeights, on any
// engine. A variable is initialised once, by the first Compile (seeded by
// CompileOptions.Seed), prediction or GetWeights of a model containing
// it. Predict works on a model that was never compiled (on the engine
// Compile would choose); Evaluate and Fit need Compile.
//
// # Custom steps and loops
//
// Fit's training step can be replaced by one written in Go
// (CompileOptions.TrainStep, a StepFunc on a Step: Keras's overridden
// train_step), with several optimizers in one step, as a GAN needs; it is
// compiled into one engine step like the built-in one. TrainOnBatch,
// TestOnBatch and PredictOnBatch run one step at a time for a loop of
// one's own. A layer adds terms to the loss with layers.Context.AddLoss.
//
// # Concurrency
//
// A Model is safe for concurrent use, as a *sql.DB is:
//   - any number of goroutines may call Predict, PredictOutputs, Evaluate,
//     GetWeights, Save, SaveWeights and Export on one model at once; each gets its
//     own correct result. Predictions run in parallel on the pure-Go engine
//     (each goroutine on its own compiled program); the libtorch engine
//     runs one call at a time on its thread, with libtorch's own threads
//     inside each.
//   - one Fit (or TrainOnBatch) at a time per model: a second one, or a
//     Compile, while it runs is an error. TestOnBatch and PredictOnBatch
//     are as safe as Evaluate and Predict. While Fit runs, the calls above see the weights
//     (and, for Save, the optimizer's state) between two training steps,
//     never half an update: a Predict or Evaluate call computes every
//     batch with the weights of one step, and a saved file holds one
//     step's weights and optimizer state. On an engine that updates in
//     place (libtorch: backend.Donor), a training step that starts while
//     no other call holds the model writes the new weights and optimizer
//     state over the old ones, as PyTorch does, keeping one copy of them;
//     a call that starts during that step waits for it to end (one step
//     at most), and one already running makes the step keep the old
//     copy instead.
//   - SetWeights, LoadWeights and a variable's Assign take effect at the
//     next step of every model containing the variables; beside a running
//     Fit, the next training step may overwrite them.
//   - Close releases the model's engine memory once the calls running on
//     it return; a later Predict opens the engine again (a server closes
//     a model version it replaced: package serving).
//   - a keras.Batches source is read by its own goroutines while the run
//     it feeds lasts: a Dataset's Batch concurrently when Workers > 1, a
//     generator by one goroutine; none after the run returns (a
//     generator that yields after yield returned false is stopped and the
//     run returns an error). The Datasets package utils makes
//     (ImageDataset, TextDataset, TimeseriesDataset) are safe for those
//     concurrent Batch calls.
//   - a callback runs on the goroutine of the run it was given to; one
//     that panics is an error of that run, naming it, and is not called
//     again.
//   - a model's host layers (StringLookup, TextVectorization, Hashing, HashedCrossing,
//     IntegerLookup: see layers.HostLayer) run on each call's own
//     goroutine, reading their vocabulary without a lock; Adapt swaps a
//     lookup layer's vocabulary whole, so a call sees the old one or the
//     new one. Other preprocessing layers (Normalization,
//     Discretization) change in place: do not adapt a layer while a model
//     that holds it trains or predicts.
//   - building a model (NewSequential, NewModel, layers.Apply) and
//     SetTrainable are not synchronised: finish building before sharing
//     the model between goroutines.
//
// Two models sharing a layer may be used from different goroutines
// likewise, except that two Fits training the same variable at once
// leave it with the last writer's value.
package keras
