// Package kernels holds the pure-Go compute kernels of kerasgo's default
// engine: the convolution (im2col and GEMM, forward and both gradients),
// max pooling, softmax, ReLU, erf, batch and layer normalisation, Keras's
// LSTM and GRU over a whole sequence, dropout, bias rows, broadcasts and
// their adjoint sums, transposes and slices, row gathers and their
// adjoint scatters, arg-max and one-hot rows, and Adam's fused update,
// each on every core through package parallel's loops. They work on
// row-major float32 or float64 slices in Keras's channels_last layout and
// know nothing of an engine, so the Gorgonia adapter (backends/gorgonia)
// is a thin layer of graph ops over them, and another pure-Go or GPU
// engine could use them.
//
// Each kernel is tested against a direct reference (a plain loop over
// the definition) and has a benchmark (go test -bench . ./internal/kernels).
// The kernels write only their outputs; their inputs are not modified.
// A kernel may run its loop on several goroutines, but a call returns only
// when every one is done.
package kernels
