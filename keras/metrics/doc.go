// Package metrics holds Keras's accuracy metrics. A metric is computed in
// two halves: per-sample values on the engine (Compute, written once on the
// Builder op set) and a running mean on the host (Mean), which is what makes
// it stateful like a Keras metric (update_state / result / reset_state).
package metrics
