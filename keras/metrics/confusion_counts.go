package metrics

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// The confusion counts of keras/src/metrics/confusion_metrics.py
// (TruePositives, FalsePositives, TrueNegatives, FalseNegatives): how
// many values of the epoch fall in each cell, a prediction being positive
// above Threshold (Keras's default 0.5) and a target positive when it is
// not 0. Keras also takes a list of thresholds, giving one count per
// threshold; kerasgo logs one number per metric, so it takes one.

// confusionCounts is the vector (tp, fp, tn, fn) over every value.
func confusionCounts(b backend.Builder, y, pred backend.Value, threshold float64) backend.Value {
	p := b.Greater(pred, b.Scalar(threshold))
	t := b.Greater(abs(b, y), b.Scalar(0)) // Keras casts targets to bool
	one := b.Scalar(1)
	notP, notT := b.Sub(one, p), b.Sub(one, t)
	counts := []backend.Value{b.Sum(b.Mul(p, t)), b.Sum(b.Mul(p, notT)), b.Sum(b.Mul(notP, notT)), b.Sum(b.Mul(notP, t))}
	for i, c := range counts {
		counts[i] = b.Reshape(c, backend.Shape{1})
	}
	return b.Concat(0, counts...)
}

// confusionCount is the metric counting one cell.
type confusionCount struct {
	cell      int // 0 tp, 1 fp, 2 tn, 3 fn
	name      string
	threshold float64
	label     string
}

// Name returns the label or Keras's name.
func (m confusionCount) Name() string { return labelOr(m.label, m.name) }

func (m confusionCount) check(backend.Shape) error {
	if m.threshold < 0 || m.threshold > 1 {
		return fmt.Errorf("%s: the threshold must be in [0, 1], got %v", m.Name(), m.threshold)
	}
	return nil
}

// Size is 4: the four cells.
func (confusionCount) Size() int { return 4 }

// Totals implements Accumulator.
func (m confusionCount) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	return confusionCounts(b, y, pred, thresholdOr(m.threshold))
}

// Result is the count of the metric's cell.
func (m confusionCount) Result(t []float64) float64 { return t[m.cell] }

// TruePositives is keras.metrics.TruePositives: predictions above
// threshold (0: Keras's 0.5) whose target is positive.
func TruePositives(threshold float64) Metric {
	return confusionCount{cell: 0, name: "true_positives", threshold: threshold}
}

// FalsePositives is keras.metrics.FalsePositives: predictions above
// threshold whose target is 0.
func FalsePositives(threshold float64) Metric {
	return confusionCount{cell: 1, name: "false_positives", threshold: threshold}
}

// TrueNegatives is keras.metrics.TrueNegatives: predictions at or below
// threshold whose target is 0.
func TrueNegatives(threshold float64) Metric {
	return confusionCount{cell: 2, name: "true_negatives", threshold: threshold}
}

// FalseNegatives is keras.metrics.FalseNegatives: predictions at or below
// threshold whose target is positive.
func FalseNegatives(threshold float64) Metric {
	return confusionCount{cell: 3, name: "false_negatives", threshold: threshold}
}

// confusionClasses are Keras's class names of the four counts, by cell.
var confusionClasses = [4]string{"TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives"}
