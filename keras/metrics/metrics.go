package metrics

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Metric reports how well predictions match targets. A metric is either a
// Sample metric (one value per sample, averaged over the epoch, like
// accuracy) or an Accumulator (totals kept over the epoch, like
// Precision or AUC).
type Metric interface {
	// Name is how the metric appears in logs and History, e.g. "accuracy".
	Name() string
}

// Sample is a metric with one value per sample, averaged over all the
// samples of an epoch (Keras's MeanMetricWrapper).
type Sample interface {
	Metric
	// Compute returns one value per sample, shape (batch,).
	Compute(b backend.Builder, yTrue, yPred backend.Value) backend.Value
}

// Accumulator is a metric Keras computes from totals kept over all the
// batches of an epoch (its state variables: true positives, a confusion
// matrix, ...): each step computes its batch's totals, the loop adds them
// up, and Result turns the sums into the metric.
type Accumulator interface {
	Metric
	// Size is the number of totals.
	Size() int
	// Totals returns the batch's totals as a vector of Size values.
	Totals(b backend.Builder, yTrue, yPred backend.Value) backend.Value
	// Result computes the metric from the totals summed over batches.
	Result(totals []float64) float64
}

// Check reports a metric that is neither a Sample nor an Accumulator, or
// an Accumulator whose settings cannot work (F1Score without an average
// on several classes, ...).
func Check(m Metric, out backend.Shape) error {
	switch v := m.(type) {
	case interface{ check(out backend.Shape) error }:
		return v.check(out)
	case Sample, Accumulator:
		return nil
	}
	return fmt.Errorf("metric %s (%T) has neither Compute (one value per sample) nor Totals and Result (an accumulator)", m.Name(), m)
}

// Get returns the metric a Keras name denotes. "accuracy" (or "acc")
// becomes binary, sparse categorical or categorical accuracy from the
// shapes of the targets and the output (batch dimension first), by Keras
// 3's rule (compile_utils.is_binary_or_sparse_categorical): binary when
// the output has one value per sample, sparse when the targets have a
// lower rank than the output or one value against several outputs. A name
// given to Register gives that function.
func Get(name string, yTrue, yPred backend.Shape) (Metric, error) {
	m, err := builtin(name, yTrue, yPred)
	if err == nil {
		return m, nil
	}
	if f, ok := registered.Lookup(name); ok {
		return funcMetric{f: f, name: name}, nil
	}
	return nil, err
}

// builtin returns the built-in metric a Keras name denotes.
func builtin(name string, yTrue, yPred backend.Shape) (Metric, error) {
	switch name {
	case "accuracy", "acc":
		tLast, pLast := yTrue[len(yTrue)-1], yPred[len(yPred)-1]
		switch {
		case pLast == 1:
			return BinaryAccuracy{Label: name}, nil
		case len(yTrue) < len(yPred) || tLast == 1:
			return SparseCategoricalAccuracy{Label: name}, nil
		default:
			return CategoricalAccuracy{Label: name}, nil
		}
	case "categorical_accuracy", "CategoricalAccuracy":
		return CategoricalAccuracy{}, nil
	case "sparse_categorical_accuracy", "SparseCategoricalAccuracy":
		return SparseCategoricalAccuracy{}, nil
	case "binary_accuracy", "BinaryAccuracy":
		return BinaryAccuracy{}, nil
	case "mae", "mean_absolute_error", "MeanAbsoluteError":
		return MeanAbsoluteError{Label: name}, nil
	case "mse", "mean_squared_error", "MeanSquaredError":
		return MeanSquaredError{Label: name}, nil
	case "rmse", "root_mean_squared_error", "RootMeanSquaredError":
		return RootMeanSquaredError{}, nil
	case "top_k_categorical_accuracy", "TopKCategoricalAccuracy":
		return TopKCategoricalAccuracy{}, nil
	case "sparse_top_k_categorical_accuracy", "SparseTopKCategoricalAccuracy":
		return SparseTopKCategoricalAccuracy{}, nil
	case "precision", "Precision":
		return Precision{}, nil
	case "recall", "Recall":
		return Recall{}, nil
	case "auc", "AUC":
		return AUC{}, nil
	case "f1_score", "F1Score":
		return F1Score{}, nil
	}
	return nil, fmt.Errorf("unknown metric %q: use one of %v, a function given to metrics.Register, a metrics.Metric or metrics.FromFunc", name, Names())
}

// Names lists the metric names Get knows.
func Names() []string {
	return []string{"accuracy", "auc", "binary_accuracy", "categorical_accuracy", "f1_score", "mae", "mse", "precision", "recall", "rmse",
		"sparse_categorical_accuracy", "sparse_top_k_categorical_accuracy", "top_k_categorical_accuracy"}
}

func labelOr(label, def string) string {
	if label != "" {
		return label
	}
	return def
}

// CategoricalAccuracy is the fraction of samples whose predicted class
// (argmax) is the one-hot target's class.
type CategoricalAccuracy struct{ Label string }

// Name returns Label or "categorical_accuracy".
func (m CategoricalAccuracy) Name() string { return labelOr(m.Label, "categorical_accuracy") }

// Compute implements Metric.
func (CategoricalAccuracy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return b.Equal(b.ArgMax(y), b.ArgMax(pred))
}

// SparseCategoricalAccuracy is the fraction of samples whose predicted class
// (argmax) equals the integer target.
type SparseCategoricalAccuracy struct{ Label string }

// Name returns Label or "sparse_categorical_accuracy".
func (m SparseCategoricalAccuracy) Name() string {
	return labelOr(m.Label, "sparse_categorical_accuracy")
}

// Compute implements Metric.
func (SparseCategoricalAccuracy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	classes := b.ArgMax(pred)
	if !y.Shape().Equal(classes.Shape()) { // targets of shape (batch, 1)
		y = b.Reshape(y, classes.Shape())
	}
	return b.Equal(y, classes)
}

// BinaryAccuracy is the fraction of predictions on the right side of
// Threshold (default 0.5), averaged over the last axis.
type BinaryAccuracy struct {
	Label     string
	Threshold float64
}

// Name returns Label or "binary_accuracy".
func (m BinaryAccuracy) Name() string { return labelOr(m.Label, "binary_accuracy") }

// Compute implements Metric.
func (m BinaryAccuracy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	t := m.Threshold
	if t == 0 {
		t = 0.5
	}
	predicted := b.Greater(pred, b.Scalar(t))
	truth := b.Greater(y, b.Scalar(0.5))
	match := b.Equal(predicted, truth)
	return b.Mean(match, len(pred.Shape())-1)
}

// Mean is a metric's running state: the mean of the values it has seen.
type Mean struct {
	total float64
	count float64
}

// Update adds n values whose sum is sum.
func (m *Mean) Update(sum float64, n int) {
	m.total += sum
	m.count += float64(n)
}

// Result returns the mean so far (0 before any update).
func (m *Mean) Result() float64 {
	if m.count == 0 {
		return 0
	}
	return m.total / m.count
}

// Reset forgets every value seen.
func (m *Mean) Reset() { *m = Mean{} }
