// Package losses holds Keras's losses, written once on the Builder op set.
// Each returns the mean over the batch of the per-sample loss (Keras's
// "sum_over_batch_size" reduction).
package losses
