// Package initializers creates the starting values of layer weights, with
// Keras's names and formulas, from an explicit seed so that a model is
// reproducible.
package initializers
