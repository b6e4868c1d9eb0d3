// Package activations maps Keras's activation names to Builder ops.
package activations
