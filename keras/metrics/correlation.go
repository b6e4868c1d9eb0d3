package metrics

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// The metrics of keras/src/metrics/correlation_metrics.py: a correlation
// per sample over the last axis, averaged over the epoch's samples.

// PearsonCorrelation is keras.metrics.PearsonCorrelation: each sample's
// Pearson correlation coefficient between its target and prediction over
// the last axis, mean((y - ȳ)/σy · (p - p̄)/σp), population standard
// deviations.
type PearsonCorrelation struct{ Label string }

// Name returns Label or "pearson_correlation".
func (m PearsonCorrelation) Name() string { return labelOr(m.Label, "pearson_correlation") }

// Compute implements Sample.
func (PearsonCorrelation) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	standardize := func(x backend.Value) backend.Value {
		c := b.Sub(x, ops.Mean(b, x, ops.Axis(-1), ops.KeepDims()))
		return b.Div(c, ops.Std(b, c, ops.Axis(-1), ops.KeepDims()))
	}
	return ops.Mean(b, b.Mul(standardize(y), standardize(pred)), ops.Axis(-1))
}

// ConcordanceCorrelation is keras.metrics.ConcordanceCorrelation: each
// sample's concordance correlation coefficient over the last axis, as
// Keras 3 computes it: mean(2·(y - p̄)(p - p̄) / (var y + var p + (ȳ -
// p̄)² + ε)). (Lin's coefficient centres y on ȳ; Keras centres both on p̄,
// and kerasgo follows Keras.)
type ConcordanceCorrelation struct{ Label string }

// Name returns Label or "concordance_correlation".
func (m ConcordanceCorrelation) Name() string { return labelOr(m.Label, "concordance_correlation") }

// Compute implements Sample.
func (ConcordanceCorrelation) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	last := []ops.AxisOption{ops.Axis(-1), ops.KeepDims()}
	yMean, pMean := ops.Mean(b, y, last...), ops.Mean(b, pred, last...)
	yVar, pVar := ops.Var(b, b.Sub(y, yMean), last...), ops.Var(b, b.Sub(pred, pMean), last...)
	covariance := b.Mul(b.Sub(y, pMean), b.Sub(pred, pMean))
	norm := b.Add(b.Add(b.Add(yVar, pVar), b.Square(b.Sub(yMean, pMean))), b.Scalar(1e-7))
	return ops.Mean(b, b.Div(b.Mul(covariance, b.Scalar(2)), norm), ops.Axis(-1))
}
