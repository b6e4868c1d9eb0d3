package metrics

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// AUC is the area under the ROC or precision-recall curve, like
// keras.metrics.AUC: confusion counts at NumThresholds thresholds evenly
// spaced over [0, 1] (plus one just below 0 and one just above 1), summed
// over the epoch, and a Riemann sum over them ("interpolation"; for PR,
// Davis and Goadrich's interpolation, as Keras). All outputs are pooled
// (Keras's multi_label=False).
type AUC struct {
	NumThresholds int    // default 200
	Curve         string // "ROC" (default) or "PR"
	Label         string
}

// Name returns Label or "auc".
func (m AUC) Name() string { return labelOr(m.Label, "auc") }

func (m AUC) n() int {
	if m.NumThresholds == 0 {
		return 200
	}
	return m.NumThresholds
}

func (m AUC) check(backend.Shape) error {
	if m.n() < 2 {
		return fmt.Errorf("AUC.NumThresholds must be at least 2, got %d", m.NumThresholds)
	}
	if m.Curve != "" && m.Curve != "ROC" && m.Curve != "PR" {
		return fmt.Errorf("AUC.Curve %q: use \"ROC\" or \"PR\"", m.Curve)
	}
	return nil
}

// thresholds are Keras's: -eps, 1/(n-1), ..., (n-2)/(n-1), 1+eps.
func (m AUC) thresholds() []float64 {
	n := m.n()
	t := make([]float64, n)
	t[0], t[n-1] = -1e-7, 1+1e-7
	for i := 1; i < n-1; i++ {
		t[i] = float64(i) / float64(n-1)
	}
	return t
}

// Size is 4 per threshold: true positives, false positives, true
// negatives, false negatives.
func (m AUC) Size() int { return 4 * m.n() }

// Totals implements Accumulator: (tp..., fp..., tn..., fn...) per
// threshold, from every prediction compared with every threshold.
func (m AUC) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	return thresholdCounts(b, y, pred, m.thresholds())
}

// thresholdCounts is (tp..., fp..., tn..., fn...) per threshold, from
// every prediction compared with every threshold (positive above it) and
// every target (positive when not 0).
func thresholdCounts(b backend.Builder, y, pred backend.Value, th []float64) backend.Value {
	n := pred.Shape().Size()
	flatP := b.Reshape(pred, backend.Shape{n, 1})
	flatY := b.Reshape(b.Greater(abs(b, y), b.Scalar(0)), backend.Shape{n, 1})
	above := b.Greater(flatP, b.Constant(th, backend.Shape{1, len(th)})) // (n, thresholds)
	one := b.Scalar(1)
	notY, below := b.Sub(one, flatY), b.Sub(one, above)
	tp := b.Sum(b.Mul(above, flatY), 0)
	fp := b.Sum(b.Mul(above, notY), 0)
	tn := b.Sum(b.Mul(below, notY), 0)
	fn := b.Sum(b.Mul(below, flatY), 0)
	return b.Concat(0, tp, fp, tn, fn)
}

// Result is Keras's AUC.result.
func (m AUC) Result(t []float64) float64 {
	n := m.n()
	tp, fp, tn, fn := t[:n], t[n:2*n], t[2*n:3*n], t[3*n:]
	if m.Curve == "PR" {
		return interpolatePRAUC(tp, fp, fn)
	}
	area := 0.0
	for i := 0; i < n-1; i++ {
		x0, x1 := divideNoNaN(fp[i], fp[i]+tn[i]), divideNoNaN(fp[i+1], fp[i+1]+tn[i+1])
		y0, y1 := divideNoNaN(tp[i], tp[i]+fn[i]), divideNoNaN(tp[i+1], tp[i+1]+fn[i+1])
		area += (x0 - x1) * (y0 + y1) / 2
	}
	return area
}

// interpolatePRAUC is Keras's AUC.interpolate_pr_auc (Davis and Goadrich,
// 2006).
func interpolatePRAUC(tp, fp, fn []float64) float64 {
	n := len(tp)
	sum := 0.0
	for i := 0; i < n-1; i++ {
		dtp := tp[i] - tp[i+1]
		p0, p1 := tp[i]+fp[i], tp[i+1]+fp[i+1]
		dp := p0 - p1
		slope := divideNoNaN(dtp, math.Max(dp, 0))
		intercept := tp[i+1] - slope*p1
		ratio := 1.0
		if p0 > 0 && p1 > 0 {
			ratio = divideNoNaN(p0, math.Max(p1, 0))
		}
		sum += divideNoNaN(slope*(dtp+intercept*math.Log(ratio)), math.Max(tp[i+1]+fn[i+1], 0))
	}
	return sum
}
