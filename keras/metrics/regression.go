package metrics

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/internal/registry"
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

// Register makes the metric function f known by name, as Keras's
// register_keras_serializable: keras.Metrics(name) and Get give it, a
// model compiled with it saves the name, and LoadModel finds it again.
// Register once, in an init function; a built-in metric's name or a
// second registration is an error. Safe for concurrent use.
func Register(name string, f Func) error {
	if f == nil {
		return fmt.Errorf("metrics.Register(%q): the function is nil", name)
	}
	return registered.Register("metric function", name, f, func(n string) bool {
		_, err := builtin(n, placeholderShape, placeholderShape)
		return err == nil
	})
}

// registered holds the metric functions given to Register.
var registered registry.Registry[Func]

type funcMetric struct {
	f    Func
	name string
}

func (m funcMetric) Name() string { return m.name }

func (m funcMetric) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return m.f(b, y, pred)
}

// RootMeanSquaredError is the square root of the mean squared error over
// all the samples seen (not the mean of per-batch roots), like
// keras.metrics.RootMeanSquaredError.
type RootMeanSquaredError struct{ Label string }

// Name returns Label or "root_mean_squared_error".
func (m RootMeanSquaredError) Name() string { return labelOr(m.Label, "root_mean_squared_error") }

// Size is 2: the sum of per-sample mean squared errors and the count.
func (RootMeanSquaredError) Size() int { return 2 }

// Totals implements Accumulator.
func (RootMeanSquaredError) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	se := b.Square(b.Sub(y, pred))
	// As Keras's Mean: each sample's mean squared error over all its
	// values (every step of a sequence), then their sum over the batch.
	axes := make([]int, len(se.Shape())-1)
	for i := range axes {
		axes[i] = i + 1
	}
	per := se
	if len(axes) > 0 {
		per = b.Mean(se, axes...)
	}
	n := float64(pred.Shape()[0])
	return b.Add(b.Mul(b.Sum(per), b.Constant([]float64{1, 0}, backend.Shape{2})), b.Constant([]float64{0, n}, backend.Shape{2}))
}

// Result is sqrt(sum / count).
func (RootMeanSquaredError) Result(t []float64) float64 { return math.Sqrt(divideNoNaN(t[0], t[1])) }

// divideNoNaN is a/b, or 0 when b is 0 (Keras's divide_no_nan).
func divideNoNaN(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
