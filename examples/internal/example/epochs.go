// Package example holds what the examples share: their command-line
// settings, their Fit-then-Evaluate, and the epoch timer they report their
// time per epoch with. Each example's model and data stay in its own
// main.go, where a reader looks for them.
package example

import (
	"time"

	"github.com/kerasgo/kerasgo/keras/callbacks"
)

// Epochs is a callback that records each epoch's wall time.
type Epochs struct {
	callbacks.Base
	start   time.Time
	seconds []float64
}

// OnEpochBegin starts the clock.
func (e *Epochs) OnEpochBegin(int) { e.start = time.Now() }

// OnEpochEnd records the epoch's time.
func (e *Epochs) OnEpochEnd(int, callbacks.Logs) {
	e.seconds = append(e.seconds, time.Since(e.start).Seconds())
}

// Mean returns the mean seconds per epoch (0 before any epoch).
func (e *Epochs) Mean() float64 {
	if len(e.seconds) == 0 {
		return 0
	}
	total := 0.0
	for _, s := range e.seconds {
		total += s
	}
	return total / float64(len(e.seconds))
}
