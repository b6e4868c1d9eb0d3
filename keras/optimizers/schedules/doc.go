// Package schedules holds learning-rate schedules, Keras's
// keras.optimizers.schedules: a schedule gives the learning rate of every
// training step from the optimizer's iteration count, and an optimizer
// given one (its Schedule field) trains with it instead of a fixed
// LearningRate.
//
// The rate is computed on the host before each step and fed to the
// compiled step as an input, so a schedule costs nothing on the engine and
// never recompiles. Schedules are serialized in Keras's schema, so a model
// compiled with one saves to and loads from a .keras file.
package schedules
