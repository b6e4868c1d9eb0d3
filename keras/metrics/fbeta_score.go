package metrics

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// FBetaScore is keras.metrics.FBetaScore: per class,
// (1 + β²)·precision·recall / (β²·precision + recall), from the true
// and false positives and false negatives of the epoch. A prediction is
// positive above Threshold, or, with no Threshold, where it is its
// sample's largest (and not 0), as in Keras. Average combines the
// classes: "micro" (one score from the counts summed over classes),
// "macro" (the mean of the per-class scores) or "weighted" (weighted by
// each class's support). Keras's default, no average, gives one score
// per class; kerasgo logs one number per metric, so it needs an Average
// unless the output has one unit. Beta 0 stands for Keras's default, 1.
type FBetaScore struct {
	Average   string
	Beta      float64
	Threshold float64
	Label     string
	classes   int
}

// Name returns Label or "fbeta_score".
func (m FBetaScore) Name() string { return labelOr(m.Label, "fbeta_score") }

func (m FBetaScore) beta() float64 {
	if m.Beta == 0 {
		return 1
	}
	return m.Beta
}

func (m FBetaScore) check(out backend.Shape) error {
	if len(out) != 2 {
		return fmt.Errorf("%s takes outputs of shape (batch, classes), as Keras's FBetaScore; this output has shape %v: use Precision and Recall, or reshape the output to two axes", m.Name(), out)
	}
	switch m.Average {
	case "micro", "macro", "weighted":
	case "":
		if out[len(out)-1] != 1 {
			return fmt.Errorf("%s without an Average gives one score per class (Keras's average=None) and kerasgo logs one number per metric: set Average to \"micro\", \"macro\" or \"weighted\"", m.Name())
		}
	default:
		return fmt.Errorf("%s: Average %q: use \"micro\", \"macro\" or \"weighted\"", m.Name(), m.Average)
	}
	if m.Threshold < 0 || m.Threshold > 1 {
		return fmt.Errorf("%s: Threshold must be in (0, 1], got %v", m.Name(), m.Threshold)
	}
	if m.Beta < 0 {
		return fmt.Errorf("%s: Beta must be > 0, got %v", m.Name(), m.Beta)
	}
	return nil
}

// ForOutput returns the metric for an output with this many classes
// (its last axis).
func (m FBetaScore) ForOutput(out backend.Shape) Metric {
	m.classes = out[len(out)-1]
	return m
}

// Size is 4 per class: true positives, false positives, false negatives
// and the class's support.
func (m FBetaScore) Size() int { return 4 * max(m.classes, 1) }

// Totals implements Accumulator: per class (tp..., fp..., fn...,
// support...), Keras's variables, targets counted by their values.
func (m FBetaScore) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	var p backend.Value
	if m.Threshold > 0 {
		p = b.Greater(pred, b.Scalar(m.Threshold))
	} else {
		// Keras: pred >= its sample's largest, and |pred| > 1e-9.
		largest := ops.Max(b, pred, ops.Axis(-1), ops.KeepDims())
		atLargest := b.Sub(b.Scalar(1), b.Greater(largest, pred))
		p = b.Mul(atLargest, b.Greater(abs(b, pred), b.Scalar(1e-9)))
	}
	one := b.Scalar(1)
	tp := b.Sum(b.Mul(p, y), 0)
	fp := b.Sum(b.Mul(p, b.Sub(one, y)), 0)
	fn := b.Sum(b.Mul(b.Sub(one, p), y), 0)
	return b.Concat(0, tp, fp, fn, b.Sum(y, 0))
}

// Result is Keras's FBetaScore.result.
func (m FBetaScore) Result(t []float64) float64 {
	const eps = 1e-7
	c := len(t) / 4
	tp, fp, fn, support := t[:c], t[c:2*c], t[2*c:3*c], t[3*c:]
	if m.Average == "micro" {
		var a, b, d, s float64
		for i := 0; i < c; i++ {
			a, b, d, s = a+tp[i], b+fp[i], d+fn[i], s+support[i]
		}
		tp, fp, fn, support, c = []float64{a}, []float64{b}, []float64{d}, []float64{s}, 1
	}
	beta2 := m.beta() * m.beta()
	scores := make([]float64, c)
	for i := range scores {
		precision := tp[i] / (tp[i] + fp[i] + eps)
		recall := tp[i] / (tp[i] + fn[i] + eps)
		scores[i] = precision * recall / (beta2*precision + recall + eps) * (1 + beta2)
	}
	if m.Average == "weighted" {
		total := 0.0
		for _, s := range support {
			total += s
		}
		sum := 0.0
		for i, f := range scores {
			sum += f * support[i] / (total + eps)
		}
		return sum
	}
	sum := 0.0
	for _, f := range scores {
		sum += f
	}
	return sum / float64(c)
}
