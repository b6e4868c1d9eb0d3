package metrics

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/losses"
)

// The metrics of keras/src/metrics/probabilistic_metrics.py, hinge_metrics.py
// and the loss-valued ones of regression_metrics.py: each is its loss's
// per-sample values (losses.Weighted.Unreduced), averaged over the epoch's
// samples as Keras's MeanMetricWrapper averages them.

// lossValues is a metric whose per-sample values are a loss's.
type lossValues struct {
	loss  losses.Weighted
	name  string // Keras's default name
	class string // Keras's class
	label string
}

// Name returns the label, or Keras's name.
func (m lossValues) Name() string { return labelOr(m.label, m.name) }

// Compute implements Sample: the loss's values, one per sample.
func (m lossValues) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return m.loss.Unreduced(b, y, pred)
}

// Hinge is keras.metrics.Hinge: the hinge loss's values, 0/1 targets
// taken as -1/1.
func Hinge() Metric {
	return lossValues{loss: weighted(losses.Hinge()), name: "hinge", class: "Hinge"}
}

// SquaredHinge is keras.metrics.SquaredHinge.
func SquaredHinge() Metric {
	return lossValues{loss: weighted(losses.SquaredHinge()), name: "squared_hinge", class: "SquaredHinge"}
}

// CategoricalHinge is keras.metrics.CategoricalHinge.
func CategoricalHinge() Metric {
	return lossValues{loss: weighted(losses.CategoricalHinge()), name: "categorical_hinge", class: "CategoricalHinge"}
}

// KLDivergence is keras.metrics.KLDivergence.
func KLDivergence() Metric {
	return lossValues{loss: weighted(losses.KLDivergence()), name: "kl_divergence", class: "KLDivergence"}
}

// Poisson is keras.metrics.Poisson.
func Poisson() Metric {
	return lossValues{loss: weighted(losses.Poisson()), name: "poisson", class: "Poisson"}
}

// LogCoshError is keras.metrics.LogCoshError, named "logcosh" as in Keras.
func LogCoshError() Metric {
	return lossValues{loss: weighted(losses.LogCosh()), name: "logcosh", class: "LogCoshError"}
}

// MeanAbsolutePercentageError is keras.metrics.MeanAbsolutePercentageError.
func MeanAbsolutePercentageError() Metric {
	return lossValues{loss: weighted(losses.MeanAbsolutePercentageError()), name: "mean_absolute_percentage_error", class: "MeanAbsolutePercentageError"}
}

// MeanSquaredLogarithmicError is keras.metrics.MeanSquaredLogarithmicError.
func MeanSquaredLogarithmicError() Metric {
	return lossValues{loss: weighted(losses.MeanSquaredLogarithmicError()), name: "mean_squared_logarithmic_error", class: "MeanSquaredLogarithmicError"}
}

// weighted is a built-in loss as the Weighted it is (every built-in loss
// gives its values before the batch average).
func weighted(l losses.Loss) losses.Weighted { return l.(losses.Weighted) }

// BinaryCrossentropy is keras.metrics.BinaryCrossentropy: the binary
// crossentropy loss's values, with its FromLogits and LabelSmoothing.
type BinaryCrossentropy struct {
	FromLogits     bool
	LabelSmoothing float64
	Label          string
}

// Name returns Label or "binary_crossentropy".
func (m BinaryCrossentropy) Name() string { return labelOr(m.Label, "binary_crossentropy") }

// Compute implements Sample.
func (m BinaryCrossentropy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return losses.BinaryCrossentropy{FromLogits: m.FromLogits, LabelSmoothing: m.LabelSmoothing}.Unreduced(b, y, pred)
}

// CategoricalCrossentropy is keras.metrics.CategoricalCrossentropy, on
// one-hot targets.
type CategoricalCrossentropy struct {
	FromLogits     bool
	LabelSmoothing float64
	Label          string
}

// Name returns Label or "categorical_crossentropy".
func (m CategoricalCrossentropy) Name() string { return labelOr(m.Label, "categorical_crossentropy") }

// Compute implements Sample.
func (m CategoricalCrossentropy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return losses.CategoricalCrossentropy{FromLogits: m.FromLogits, LabelSmoothing: m.LabelSmoothing}.Unreduced(b, y, pred)
}

// SparseCategoricalCrossentropy is keras.metrics.SparseCategoricalCrossentropy,
// on class indices.
type SparseCategoricalCrossentropy struct {
	FromLogits bool
	Label      string
}

// Name returns Label or "sparse_categorical_crossentropy".
func (m SparseCategoricalCrossentropy) Name() string {
	return labelOr(m.Label, "sparse_categorical_crossentropy")
}

// Compute implements Sample.
func (m SparseCategoricalCrossentropy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return losses.SparseCategoricalCrossentropy{FromLogits: m.FromLogits}.Unreduced(b, y, pred)
}
