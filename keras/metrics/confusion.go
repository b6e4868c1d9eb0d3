package metrics

import (
	"fmt"

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

// F1Score is the harmonic mean of precision and recall per class, like
// keras.metrics.F1Score: predictions above Threshold count as positive,
// or, with no Threshold, each sample's most probable class. Average
// combines the classes: "micro" (from the summed counts), "macro" (the
// mean of per-class scores) or "weighted" (weighted by each class's
// support). Keras's default, no average, gives one score per class; kerasgo
// logs scalars, so it needs an Average unless the output has one unit.
type F1Score struct {
	Average   string
	Threshold float64 // 0: the most probable class is positive
	Label     string
	classes   int
}

// Name returns Label or "f1_score".
func (m F1Score) Name() string { return labelOr(m.Label, "f1_score") }

func (m F1Score) check(out backend.Shape) error {
	if len(out) != 2 {
		return fmt.Errorf("F1Score takes outputs of shape (batch, classes), as Keras's FBetaScore; this output has shape %v: use Precision and Recall, or reshape the output to two axes", out)
	}
	switch m.Average {
	case "micro", "macro", "weighted":
	case "":
		if out[len(out)-1] != 1 {
			return fmt.Errorf("F1Score without an Average gives one score per class (Keras's average=None) and kerasgo logs one number per metric: set Average to \"micro\", \"macro\" or \"weighted\"")
		}
	default:
		return fmt.Errorf("F1Score.Average %q: use \"micro\", \"macro\" or \"weighted\"", m.Average)
	}
	if m.Threshold < 0 || m.Threshold > 1 {
		return fmt.Errorf("F1Score.Threshold must be in (0, 1], got %v", m.Threshold)
	}
	return nil
}

// ForOutput returns the metric for an output with this many classes
// (its last axis).
func (m F1Score) ForOutput(out backend.Shape) Metric {
	m.classes = out[len(out)-1]
	return m
}

// Size is 3 per class: true positives, false positives, false negatives.
func (m F1Score) Size() int { return 3 * max(m.classes, 1) }

// Totals implements Accumulator: per-class (tp..., fp..., fn...).
func (m F1Score) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	var p backend.Value
	if m.Threshold > 0 {
		p = b.Greater(pred, b.Scalar(m.Threshold))
	} else if pred.Shape()[len(pred.Shape())-1] == 1 {
		p = b.Greater(pred, b.Scalar(0.5))
	} else {
		p = b.OneHot(b.ArgMax(pred), pred.Shape()[len(pred.Shape())-1])
	}
	t := b.Greater(abs(b, y), b.Scalar(0))
	one := b.Scalar(1)
	axes := make([]int, len(pred.Shape())-1) // all but the classes
	for i := range axes {
		axes[i] = i
	}
	tp := b.Sum(b.Mul(p, t), axes...)
	fp := b.Sum(b.Mul(p, b.Sub(one, t)), axes...)
	fn := b.Sum(b.Mul(b.Sub(one, p), t), axes...)
	return b.Concat(0, tp, fp, fn)
}

// Result combines the per-class scores as Average says.
func (m F1Score) Result(t []float64) float64 {
	c := len(t) / 3
	tp, fp, fn := t[:c], t[c:2*c], t[2*c:]
	f1 := func(tp, fp, fn float64) float64 {
		p, r := divideNoNaN(tp, tp+fp), divideNoNaN(tp, tp+fn)
		return 2 * divideNoNaN(p*r, p+r)
	}
	switch m.Average {
	case "micro":
		var a, b, d float64
		for i := 0; i < c; i++ {
			a, b, d = a+tp[i], b+fp[i], d+fn[i]
		}
		return f1(a, b, d)
	case "weighted":
		var sum, support float64
		for i := 0; i < c; i++ {
			sum += f1(tp[i], fp[i], fn[i]) * (tp[i] + fn[i])
			support += tp[i] + fn[i]
		}
		return divideNoNaN(sum, support)
	default: // "macro", or one class
		sum := 0.0
		for i := 0; i < c; i++ {
			sum += f1(tp[i], fp[i], fn[i])
		}
		return sum / float64(c)
	}
}
