// Package examples holds runnable programs that train the models Keras's
// own examples build, on data generated on the spot (no download):
//
//   - examples/sentiment: Embedding + LSTM text classifier
//   - examples/forecast: LSTM time-series forecaster
//
// Each takes -backend (gorgonia, libtorch, ...) and -epochs, prints
// Keras's progress and the time per epoch, and ends with its test score.
// Run one with `go run ./examples/sentiment`.
package examples
