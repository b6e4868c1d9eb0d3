// Package optimizers holds Keras's optimizers, written once on the Builder
// op set with Keras 3's update rules and defaults, so every engine trains
// identically.
//
// An optimizer is stateless in the sense of the step function: its state
// (moments, step counts) is a list of tensors it declares with State and
// receives and returns in Update.
package optimizers
