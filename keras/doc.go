// Package keras is Keras's way of building and training neural networks,
// in Go, over more than one engine.
//
// Define a model, compile it, fit it:
//
//	model, err := keras.NewSequential(
//		layers.Input(28, 28, 1),
//		&layers.Flatten{},
//		&layers.Dense{Units: 128, Activation: "relu"},
//		&layers.Dense{Units: 10, Activation: "softmax"},
//	)
//	err = model.Compile(keras.CompileOptions{Optimizer: "adam", Loss: "sparse_categorical_crossentropy", Metrics: []any{"accuracy"}})
//	history, err := model.Fit(ctx, x, y, keras.FitOptions{Epochs: 5, BatchSize: 128, Verbose: 1})
//
// The engine underneath is chosen at Compile (see CompileOptions.Backend and
// package backend): the same model code runs on every engine. Sequential is
// sugar over the functional API (NewModel with layers.Input and
// layers.Apply): one graph executor serves both.
package keras
