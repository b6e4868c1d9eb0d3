package metrics

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// R2Score is keras.metrics.R2Score, the coefficient of determination of
// regression outputs (batch, outputs) over every sample of the epoch:
// per output 1 - Σ(y - p)² / Σ(y - ȳ)², then combined as
// ClassAggregation says: "uniform_average" (the default, the mean over
// outputs) or "variance_weighted_average" (weighted by each output's
// variance). Keras's aggregation None gives one score per output, and
// kerasgo logs one number per metric, so it is refused. NumRegressors
// above 0 gives the adjusted R² (falling back to R² when there are too
// few samples, as Keras does).
type R2Score struct {
	ClassAggregation string // "" is "uniform_average"
	NumRegressors    int
	Label            string
	outputs          int
}

// Name returns Label or "r2_score".
func (m R2Score) Name() string { return labelOr(m.Label, "r2_score") }

func (m R2Score) aggregation() string {
	if m.ClassAggregation == "" {
		return "uniform_average"
	}
	return m.ClassAggregation
}

func (m R2Score) check(out backend.Shape) error {
	switch m.aggregation() {
	case "uniform_average", "variance_weighted_average":
	default:
		return fmt.Errorf("R2Score.ClassAggregation %q: use \"uniform_average\" or \"variance_weighted_average\" (Keras's None gives one score per output, and kerasgo logs one number per metric)", m.ClassAggregation)
	}
	if m.NumRegressors < 0 {
		return fmt.Errorf("R2Score.NumRegressors must be >= 0, got %d", m.NumRegressors)
	}
	if len(out) != 2 || out[1] < 1 {
		return fmt.Errorf("R2Score expects outputs of shape (batch, outputs), as Keras's; this output has shape %v", out)
	}
	return nil
}

// ForOutput returns the metric for an output with this many columns.
func (m R2Score) ForOutput(out backend.Shape) Metric {
	m.outputs = out[len(out)-1]
	return m
}

// Size is 4 per output (Σy, Σy², Σ(y-p)², count) and the number of values.
func (m R2Score) Size() int { return 4*max(m.outputs, 1) + 1 }

// Totals implements Accumulator: per output Σy, Σy², Σ(y-p)² and the
// count of samples, then the number of values seen.
func (m R2Score) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	ys := y.Shape()
	if ps := pred.Shape(); len(ys) == 1 && len(ps) == 2 {
		y = b.Reshape(y, backend.Shape{ys[0], 1})
	}
	n := pred.Shape()[0]
	count := b.Constant(filled(float64(n), pred.Shape()[1]), backend.Shape{pred.Shape()[1]})
	return b.Concat(0, b.Sum(y, 0), b.Sum(b.Square(y), 0), b.Sum(b.Square(b.Sub(y, pred)), 0), count,
		b.Constant([]float64{float64(pred.Shape().Size())}, backend.Shape{1}))
}

// filled is n copies of v.
func filled(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// Result is Keras's R2Score.result.
func (m R2Score) Result(t []float64) float64 {
	c := (len(t) - 1) / 4
	sum, squares, residual, count := t[:c], t[c:2*c], t[2*c:3*c], t[3*c:4*c]
	samples := t[4*c]
	scores, totals := make([]float64, c), make([]float64, c)
	for i := range scores {
		mean := sum[i] / count[i]
		totals[i] = squares[i] - sum[i]*mean
		scores[i] = 1 - residual[i]/totals[i]
		if math.IsInf(scores[i], 0) {
			scores[i] = 0
		}
	}
	var r2 float64
	if m.aggregation() == "variance_weighted_average" {
		var weightedSum, weights float64
		for i := range scores {
			weightedSum += totals[i] * scores[i]
			weights += totals[i]
		}
		r2 = weightedSum / weights
	} else {
		for _, s := range scores {
			r2 += s
		}
		r2 /= float64(c)
	}
	if p := float64(m.NumRegressors); p > 0 && p < samples-1 {
		r2 = 1 - (1-r2)*(samples-1)/(samples-p-1)
	}
	return r2
}
