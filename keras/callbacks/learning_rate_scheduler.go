package callbacks

import (
	"fmt"
	"io"
	"math"
	"os"
)

// LearningRateScheduler sets the learning rate at the start of each epoch
// from a schedule, like keras.callbacks.LearningRateScheduler: schedule
// gets the epoch (from 0) and the current rate and returns the new one.
type LearningRateScheduler struct {
	Base
	Schedule func(epoch int, lr float64) float64
	Verbose  int
	Output   io.Writer // default os.Stdout
	err      error
}

// NewLearningRateScheduler returns the callback.
func NewLearningRateScheduler(schedule func(epoch int, lr float64) float64) *LearningRateScheduler {
	return &LearningRateScheduler{Schedule: schedule}
}

// Err reports a schedule that returned an invalid rate.
func (s *LearningRateScheduler) Err() error { return s.err }

// OnEpochBegin applies the schedule.
func (s *LearningRateScheduler) OnEpochBegin(epoch int) {
	lr, err := s.Model().LearningRate()
	if err == nil {
		next := s.Schedule(epoch, lr)
		if math.IsNaN(next) || math.IsInf(next, 0) || next < 0 {
			err = fmt.Errorf("the schedule returned %v for epoch %d: a learning rate must be a finite number >= 0", next, epoch)
		} else {
			err = s.Model().SetLearningRate(next)
			if err == nil && s.Verbose > 0 {
				out := s.Output
				if out == nil {
					out = os.Stdout
				}
				fmt.Fprintf(out, "\nEpoch %d: LearningRateScheduler setting learning rate to %v.\n", epoch+1, next)
			}
		}
	}
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("LearningRateScheduler: %w", err)
		s.Model().StopTraining()
	}
}

// LogsLearningRate makes Fit add "learning_rate" to each epoch's logs, as
// Keras's LearningRateScheduler does.
func (*LearningRateScheduler) LogsLearningRate() bool { return true }
