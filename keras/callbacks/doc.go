// Package callbacks holds hooks into the training loop, like
// keras.callbacks: a Callback interface, Logs, and the progress bar that
// Fit shows by default.
package callbacks
