package metrics

import (
	"fmt"
	"sync"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// The metrics of keras/src/metrics/reduction_metrics.py: trackers a
// program updates with values of its own (a custom training loop's
// losses, a reward), as keras.metrics.Mean and Sum are used with
// update_state, result and reset_state. They are not computed from
// targets and predictions, so Compile refuses them. Both are safe for
// concurrent use.

// Mean is keras.metrics.Mean: the weighted mean of every value given to
// UpdateState since the last ResetState.
type Mean struct {
	Label string

	mu           sync.Mutex
	total, count float64
}

// Name returns Label or "mean".
func (m *Mean) Name() string { return labelOr(m.Label, "mean") }

// UpdateState adds values, each weighted by its weight (nil weights: 1
// each; one weight: for every value), as Keras's update_state(values,
// sample_weight).
func (m *Mean) UpdateState(values, weights []float64) error {
	total, count, err := weightedSum("Mean", values, weights)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.total += total
	m.count += count
	m.mu.Unlock()
	return nil
}

// Result returns the mean so far: 0 before any value, as Keras's
// divide_no_nan.
func (m *Mean) Result() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return divideNoNaN(m.total, m.count)
}

// ResetState forgets every value.
func (m *Mean) ResetState() {
	m.mu.Lock()
	m.total, m.count = 0, 0
	m.mu.Unlock()
}

func (m *Mean) check(backend.Shape) error { return trackerError(m.Name(), "Mean") }

// Sum is keras.metrics.Sum: the weighted sum of every value given to
// UpdateState since the last ResetState.
type Sum struct {
	Label string

	mu    sync.Mutex
	total float64
}

// Name returns Label or "sum".
func (m *Sum) Name() string { return labelOr(m.Label, "sum") }

// UpdateState adds values, each weighted by its weight (nil weights: 1
// each; one weight: for every value).
func (m *Sum) UpdateState(values, weights []float64) error {
	total, _, err := weightedSum("Sum", values, weights)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.total += total
	m.mu.Unlock()
	return nil
}

// Result returns the sum so far.
func (m *Sum) Result() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.total
}

// ResetState forgets every value.
func (m *Sum) ResetState() {
	m.mu.Lock()
	m.total = 0
	m.mu.Unlock()
}

func (m *Sum) check(backend.Shape) error { return trackerError(m.Name(), "Sum") }

// weightedSum is Σ value·weight and Σ weight, weights broadcast as Keras
// broadcasts sample_weight.
func weightedSum(metric string, values, weights []float64) (total, count float64, err error) {
	switch len(weights) {
	case 0:
		for _, v := range values {
			total += v
		}
		return total, float64(len(values)), nil
	case 1:
		for _, v := range values {
			total += v * weights[0]
		}
		return total, weights[0] * float64(len(values)), nil
	case len(values):
		for i, v := range values {
			total += v * weights[i]
			count += weights[i]
		}
		return total, count, nil
	}
	return 0, 0, fmt.Errorf("metrics.%s.UpdateState: %d weights for %d values: give one weight per value, one for all, or none", metric, len(weights), len(values))
}

// trackerError is Compile's error for a tracker given as a metric.
func trackerError(name, class string) error {
	return fmt.Errorf("metric %s: metrics.%s is a tracker you update yourself (UpdateState), as Keras's %s; it is not computed from targets and predictions, so Compile cannot take it: use a metric such as \"mae\", or update it in your own loop", name, class, class)
}
