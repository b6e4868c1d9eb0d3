package callbacks

import "math"

// Log is one named value in Logs, e.g. {"loss", 0.4012}.
type Log struct {
	Name  string
	Value float64
}

// Logs are the values a training loop reports, in Keras's order: loss,
// metrics, then val_loss and validation metrics.
type Logs []Log

// Get returns the value called name and whether it is there.
func (l Logs) Get(name string) (float64, bool) {
	for _, e := range l {
		if e.Name == name {
			return e.Value, true
		}
	}
	return math.NaN(), false
}

// Params describes a training run to callbacks.
type Params struct {
	Epochs int // number of epochs
	Steps  int // batches per epoch
}

// Callback is called by Fit at the points Keras calls its callbacks.
// Embed [Base] to implement only some of them.
type Callback interface {
	OnTrainBegin(p Params)
	OnEpochBegin(epoch int) // epoch counts from 0
	OnBatchEnd(batch int, logs Logs)
	OnEpochEnd(epoch int, logs Logs)
	OnTrainEnd(logs Logs)
}

// Base implements every Callback method as a no-op.
type Base struct{}

// OnTrainBegin does nothing.
func (Base) OnTrainBegin(Params) {}

// OnEpochBegin does nothing.
func (Base) OnEpochBegin(int) {}

// OnBatchEnd does nothing.
func (Base) OnBatchEnd(int, Logs) {}

// OnEpochEnd does nothing.
func (Base) OnEpochEnd(int, Logs) {}

// OnTrainEnd does nothing.
func (Base) OnTrainEnd(Logs) {}
