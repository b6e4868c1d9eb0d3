package metrics

import (
	"github.com/kerasgo/kerasgo/keras/backend"
)

// The confusion-matrix metrics of keras/src/metrics/confusion_metrics.py
// and f_score_metrics.py: totals of true and false positives and
// negatives kept over an epoch.

// thresholdOr is Keras's default decision threshold, 0.5.
func thresholdOr(t float64) float64 {
	if t == 0 {
		return 0.5
	}
	return t
}

// positives counts, over every element, the true positives (prediction
// above the threshold, target non-zero), false positives and false
// negatives: the vector (tp, fp, fn).
func positives(b backend.Builder, y, pred backend.Value, threshold float64) backend.Value {
	p := b.Greater(pred, b.Scalar(threshold))
	t := b.Greater(abs(b, y), b.Scalar(0)) // Keras casts targets to bool
	one := b.Scalar(1)
	tp := b.Sum(b.Mul(p, t))
	fp := b.Sum(b.Mul(p, b.Sub(one, t)))
	fn := b.Sum(b.Mul(b.Sub(one, p), t))
	unit := func(i int) backend.Value {
		u := make([]float64, 3)
		u[i] = 1
		return b.Constant(u, backend.Shape{3})
	}
	return b.Add(b.Add(b.Mul(tp, unit(0)), b.Mul(fp, unit(1))), b.Mul(fn, unit(2)))
}

func abs(b backend.Builder, x backend.Value) backend.Value { return b.Maximum(x, b.Neg(x)) }

// Precision is true positives / (true positives + false positives) over
// all the predictions seen, a prediction being positive above Threshold
// (default 0.5), like keras.metrics.Precision.
type Precision struct {
	Threshold float64
	Label     string
}

// Name returns Label or "precision".
func (m Precision) Name() string { return labelOr(m.Label, "precision") }

// Size is 3: true positives, false positives, false negatives.
func (Precision) Size() int { return 3 }

// Totals implements Accumulator.
func (m Precision) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	return positives(b, y, pred, thresholdOr(m.Threshold))
}

// Result is tp / (tp + fp), 0 with no positive prediction.
func (Precision) Result(t []float64) float64 { return divideNoNaN(t[0], t[0]+t[1]) }

// Recall is true positives / (true positives + false negatives) over all
// the targets seen, like keras.metrics.Recall.
type Recall struct {
	Threshold float64
	Label     string
}

// Name returns Label or "recall".
func (m Recall) Name() string { return labelOr(m.Label, "recall") }

// Size is 3: true positives, false positives, false negatives.
func (Recall) Size() int { return 3 }

// Totals implements Accumulator.
func (m Recall) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	return positives(b, y, pred, thresholdOr(m.Threshold))
}

// Result is tp / (tp + fn), 0 with no positive target.
func (Recall) Result(t []float64) float64 { return divideNoNaN(t[0], t[0]+t[2]) }

// F1Score is keras.metrics.F1Score: FBetaScore with Beta 1, the
// harmonic mean of precision and recall.
type F1Score struct {
	Average   string
	Threshold float64 // 0: each sample's most probable classes are positive
	Label     string
	classes   int
}

// Name returns Label or "f1_score".
func (m F1Score) Name() string { return labelOr(m.Label, "f1_score") }

// fbeta is the FBetaScore m is.
func (m F1Score) fbeta() FBetaScore {
	return FBetaScore{Average: m.Average, Beta: 1, Threshold: m.Threshold, Label: m.Name(), classes: m.classes}
}

func (m F1Score) check(out backend.Shape) error { return m.fbeta().check(out) }

// ForOutput returns the metric for an output with this many classes
// (its last axis).
func (m F1Score) ForOutput(out backend.Shape) Metric {
	m.classes = out[len(out)-1]
	return m
}

// Size is 4 per class: true positives, false positives, false negatives
// and the class's support.
func (m F1Score) Size() int { return m.fbeta().Size() }

// Totals implements Accumulator.
func (m F1Score) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	return m.fbeta().Totals(b, y, pred)
}

// Result combines the per-class scores as Average says.
func (m F1Score) Result(t []float64) float64 { return m.fbeta().Result(t) }
