package metrics

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// The metrics of Keras's SensitivitySpecificityBase
// (keras/src/metrics/confusion_metrics.py): the confusion counts at
// NumThresholds thresholds evenly spaced over [0, 1] (Keras's default
// 200; one threshold is 0.5), summed over the epoch, and the best value
// of one rate among the thresholds where another reaches a Value:
//
//	PrecisionAtRecall        the best precision where recall >= Value
//	RecallAtPrecision        the best recall where precision >= Value
//	SensitivityAtSpecificity the best sensitivity where specificity >= Value
//	SpecificityAtSensitivity the best specificity where sensitivity >= Value
//
// 0 when no threshold reaches it. Keras's class_id (one class of several
// outputs) is not supported: every output is pooled.

// atRate is one of the four metrics.
type atRate struct {
	kind          int // 0 PrecisionAtRecall, 1 RecallAtPrecision, 2 SensitivityAtSpecificity, 3 SpecificityAtSensitivity
	value         float64
	numThresholds int
	label         string
}

// atRateKinds are each kind's Keras class, default name and the name of
// its value in Keras's config.
var atRateKinds = [4]struct{ class, name, value string }{
	{"PrecisionAtRecall", "precision_at_recall", "recall"},
	{"RecallAtPrecision", "recall_at_precision", "precision"},
	{"SensitivityAtSpecificity", "sensitivity_at_specificity", "specificity"},
	{"SpecificityAtSensitivity", "specificity_at_sensitivity", "sensitivity"},
}

// PrecisionAtRecall is keras.metrics.PrecisionAtRecall(recall): the best
// precision among the thresholds whose recall is at least recall.
// numThresholds 0 stands for Keras's 200.
func PrecisionAtRecall(recall float64, numThresholds int) Metric {
	return atRate{kind: 0, value: recall, numThresholds: numThresholds}
}

// RecallAtPrecision is keras.metrics.RecallAtPrecision(precision).
func RecallAtPrecision(precision float64, numThresholds int) Metric {
	return atRate{kind: 1, value: precision, numThresholds: numThresholds}
}

// SensitivityAtSpecificity is keras.metrics.SensitivityAtSpecificity(specificity).
func SensitivityAtSpecificity(specificity float64, numThresholds int) Metric {
	return atRate{kind: 2, value: specificity, numThresholds: numThresholds}
}

// SpecificityAtSensitivity is keras.metrics.SpecificityAtSensitivity(sensitivity).
func SpecificityAtSensitivity(sensitivity float64, numThresholds int) Metric {
	return atRate{kind: 3, value: sensitivity, numThresholds: numThresholds}
}

// Name returns the label or Keras's name.
func (m atRate) Name() string { return labelOr(m.label, atRateKinds[m.kind].name) }

func (m atRate) n() int {
	if m.numThresholds == 0 {
		return 200
	}
	return m.numThresholds
}

func (m atRate) check(backend.Shape) error {
	if m.value < 0 || m.value > 1 {
		return fmt.Errorf("%s: %s=%v is out of range: it must be in [0, 1]", atRateKinds[m.kind].class, atRateKinds[m.kind].value, m.value)
	}
	if m.numThresholds < 0 {
		return fmt.Errorf("%s: num_thresholds=%d is out of range: it must be > 0", atRateKinds[m.kind].class, m.numThresholds)
	}
	return nil
}

// thresholds are Keras's: 0, 1/(n-1), ..., (n-2)/(n-1), 1; one is 0.5.
func (m atRate) thresholds() []float64 {
	n := m.n()
	if n == 1 {
		return []float64{0.5}
	}
	t := make([]float64, n)
	for i := 1; i < n-1; i++ {
		t[i] = float64(i) / float64(n-1)
	}
	t[n-1] = 1
	return t
}

// Size is 4 per threshold.
func (m atRate) Size() int { return 4 * m.n() }

// Totals implements Accumulator: (tp..., fp..., tn..., fn...) per
// threshold, as AUC's.
func (m atRate) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	return thresholdCounts(b, y, pred, m.thresholds())
}

// Result is Keras's result: the largest dependent rate among the
// thresholds whose constrained rate reaches the value (0 if none).
func (m atRate) Result(t []float64) float64 {
	n := m.n()
	tp, fp, tn, fn := t[:n], t[n:2*n], t[2*n:3*n], t[3*n:]
	best := 0.0
	for i := 0; i < n; i++ {
		recall := divideNoNaN(tp[i], tp[i]+fn[i]) // = sensitivity
		precision := divideNoNaN(tp[i], tp[i]+fp[i])
		specificity := divideNoNaN(tn[i], tn[i]+fp[i])
		constrained, dependent := [4]float64{recall, precision, specificity, recall}[m.kind], [4]float64{precision, recall, recall, specificity}[m.kind]
		if constrained >= m.value && dependent > best {
			best = dependent
		}
	}
	return best
}
