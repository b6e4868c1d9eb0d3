package callbacks

import (
	"fmt"
	"math"
	"strings"
)

// Modes of a monitored quantity, as Keras spells them.
const (
	ModeAuto = "auto"
	ModeMin  = "min"
	ModeMax  = "max"
)

// increasingMetrics are the metrics kerasgo reports that are better when
// larger (Keras's metric direction "up").
var increasingMetrics = map[string]bool{
	"accuracy": true, "acc": true, "binary_accuracy": true, "categorical_accuracy": true,
	"sparse_categorical_accuracy": true, "top_k_categorical_accuracy": true,
	"sparse_top_k_categorical_accuracy": true, "auc": true, "precision": true, "recall": true, "f1_score": true,
}

// monitor decides whether a monitored value improved, as Keras's
// EarlyStopping and ModelCheckpoint do (keras/src/callbacks/monitor_callback.py):
// in "auto" mode a loss should decrease and an accuracy-like metric increase;
// other names need an explicit mode.
type monitor struct {
	name     string
	minDelta float64 // >= 0
	lower    bool    // true: smaller is better
	best     float64
}

func newMonitor(name, mode string, minDelta float64) (*monitor, error) {
	if math.IsNaN(minDelta) || math.IsInf(minDelta, 0) {
		return nil, fmt.Errorf("MinDelta is %v: give a finite number (0 by default)", minDelta)
	}
	m := &monitor{name: name, minDelta: math.Abs(minDelta)}
	switch mode {
	case ModeMin:
		m.lower = true
	case ModeMax:
	case ModeAuto, "":
		base := strings.TrimPrefix(name, "val_")
		switch {
		case base == "loss" || strings.HasSuffix(base, "_loss"):
			m.lower = true
		case increasingMetrics[base]:
		default:
			return nil, fmt.Errorf("monitor %q: kerasgo cannot tell whether it should be minimised or maximised: set Mode to %q or %q", name, ModeMin, ModeMax)
		}
	default:
		return nil, fmt.Errorf("unknown mode %q: use %q, %q or %q", mode, ModeAuto, ModeMin, ModeMax)
	}
	m.reset()
	return m, nil
}

// checkMode refuses a mode other than Keras's three (Keras warns and
// falls back to "auto"; a typo such as "up" would silently watch the
// wrong direction).
func checkMode(mode string) error {
	switch mode {
	case ModeAuto, ModeMin, ModeMax, "":
		return nil
	}
	return fmt.Errorf("unknown Mode %q: use %q, %q or %q", mode, ModeAuto, ModeMin, ModeMax)
}

// checkFinite refuses a NaN or infinite setting, naming it.
func checkFinite(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s is %v: give a finite number", name, v)
	}
	return nil
}

func (m *monitor) reset() {
	if m.lower {
		m.best = math.Inf(1)
	} else {
		m.best = math.Inf(-1)
	}
}

// improves reports whether v beats ref by more than minDelta.
func (m *monitor) improves(v, ref float64) bool {
	if m.lower {
		return v+m.minDelta < ref
	}
	return v-m.minDelta > ref
}

func (m *monitor) missing(logs Logs) error {
	return fmt.Errorf("the monitored quantity %q is not in the logs (they have %v): check the name, and pass validation data to Fit for a val_ quantity", m.name, logs.Names())
}
