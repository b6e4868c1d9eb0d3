package metrics

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/losses"
)

// MeanAbsoluteError is the mean of |y - pred| over the last axis, per
// sample, like keras.metrics.MeanAbsoluteError ("mae").
type MeanAbsoluteError struct{ Label string }

// Name returns Label or "mean_absolute_error".
func (m MeanAbsoluteError) Name() string { return labelOr(m.Label, "mean_absolute_error") }

// Compute implements Metric.
func (MeanAbsoluteError) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	d := b.Sub(y, pred)
	return b.Mean(b.Maximum(d, b.Neg(d)), len(pred.Shape())-1)
}

// MeanSquaredError is the mean of (y - pred)² over the last axis, per
// sample, like keras.metrics.MeanSquaredError ("mse").
type MeanSquaredError struct{ Label string }

// Name returns Label or "mean_squared_error".
func (m MeanSquaredError) Name() string { return labelOr(m.Label, "mean_squared_error") }

// Compute implements Metric.
func (MeanSquaredError) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return b.Mean(b.Square(b.Sub(y, pred)), len(pred.Shape())-1)
}

// Func is a metric written as a plain function returning one value per
// sample, as Keras accepts any callable.
type Func func(b backend.Builder, yTrue, yPred backend.Value) backend.Value

// FromFunc wraps a plain function as a Metric named after the function
// (Keras uses the callable's __name__).
func FromFunc(f Func) Metric { return funcMetric{f: f, name: losses.FuncName(f, "custom_metric")} }

type funcMetric struct {
	f    Func
	name string
}

func (m funcMetric) Name() string { return m.name }

func (m funcMetric) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return m.f(b, y, pred)
}
