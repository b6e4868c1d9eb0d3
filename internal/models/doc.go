// Package models defines the two classic Keras MNIST models that the demo
// and the benchmarks share, so that both always measure the same network.
package models
