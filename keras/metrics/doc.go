// Package metrics holds Keras's metrics, every class keras.metrics
// exports. A compiled metric is computed in two halves: on the engine,
// written once on the Builder op set, either per-sample values (Sample:
// accuracy, mae, the crossentropies, the correlations) or a batch's
// totals (Accumulator: confusion counts, a confusion matrix, R²'s sums);
// on the host, the loop averages the values or sums the totals over an
// epoch and Result turns the totals into the metric, which is what makes
// a metric stateful like a Keras metric (update_state / result /
// reset_state). Mean and Sum are Keras's trackers, updated by the
// program itself.
//
// Metric values (the types and constructors here) are immutable and safe
// to share between models and goroutines; Mean and Sum are safe for
// concurrent use.
package metrics
