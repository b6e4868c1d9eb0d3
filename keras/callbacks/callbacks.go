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

// Names returns the names in the logs, in order.
func (l Logs) Names() []string {
	out := make([]string, len(l))
	for i, e := range l {
		out[i] = e.Name
	}
	return out
}

// Params describes a run (Fit, Evaluate or Predict) to callbacks.
type Params struct {
	Epochs int // number of epochs (Fit)
	Steps  int // batches per epoch, or per evaluation or prediction; -1 when the data's end says it (a generator)
}

// Model is what callbacks may do to the model being trained, like Keras's
// callback.model: read and set weights and the learning rate, save, and
// stop training (Keras's model.stop_training = True).
type Model interface {
	GetWeights() ([][]float32, error)
	SetWeights([][]float32) error
	// Save writes the model to a .keras file; SaveWeights writes the
	// weights to a .weights.h5 or .safetensors file (with the optimizer's
	// state in .weights.h5), LoadWeights reads them back.
	Save(path string) error
	SaveWeights(path string) error
	LoadWeights(path string) error
	// ResumeAt makes the Fit that is starting (called from OnTrainBegin)
	// begin at batch (from 0) of epoch (from 0), as a resumed run does.
	// logs are the epoch's running logs after the batches before it (nil
	// when batch is 0), so that the epoch's logs count them.
	ResumeAt(epoch, batch int, logs Logs)
	// LearningRate returns the optimizer's current learning rate;
	// SetLearningRate changes it from the next training step on.
	LearningRate() (float64, error)
	SetLearningRate(lr float64) error
	// StopTraining makes Fit stop after the current batch.
	StopTraining()
	// IsChief reports whether this process writes files and prints: true
	// unless it is a rank other than 0 of a data-parallel job (package
	// distribution), whose checkpoints, backups and logs rank 0 writes.
	IsChief() bool
}

// Callback is called by Fit, Evaluate and Predict at the points Keras
// calls its callbacks (keras/src/callbacks/callback.py). Embed [Base] and
// override the methods you need; Base also keeps the model (see
// Base.Model).
type Callback interface {
	SetModel(m Model)
	OnTrainBegin(p Params)
	OnTrainEnd(logs Logs)
	OnEpochBegin(epoch int) // epoch counts from 0
	OnEpochEnd(epoch int, logs Logs)
	OnTrainBatchBegin(batch int)
	OnTrainBatchEnd(batch int, logs Logs)
	OnTestBegin(p Params)
	OnTestEnd(logs Logs)
	OnTestBatchBegin(batch int)
	OnTestBatchEnd(batch int, logs Logs)
	OnPredictBegin(p Params)
	OnPredictEnd()
	OnPredictBatchBegin(batch int)
	OnPredictBatchEnd(batch int)
}

// Base implements every Callback method as a no-op and remembers the
// model. Embed *Base's value in a callback struct used by pointer.
type Base struct {
	model Model
}

// SetModel records the model; Fit, Evaluate and Predict call it first.
func (b *Base) SetModel(m Model) { b.model = m }

// Model returns the model the callback is attached to (nil before the run
// starts).
func (b *Base) Model() Model { return b.model }

// OnTrainBegin does nothing.
func (*Base) OnTrainBegin(Params) {}

// OnTrainEnd does nothing.
func (*Base) OnTrainEnd(Logs) {}

// OnEpochBegin does nothing.
func (*Base) OnEpochBegin(int) {}

// OnEpochEnd does nothing.
func (*Base) OnEpochEnd(int, Logs) {}

// OnTrainBatchBegin does nothing.
func (*Base) OnTrainBatchBegin(int) {}

// OnTrainBatchEnd does nothing.
func (*Base) OnTrainBatchEnd(int, Logs) {}

// OnTestBegin does nothing.
func (*Base) OnTestBegin(Params) {}

// OnTestEnd does nothing.
func (*Base) OnTestEnd(Logs) {}

// OnTestBatchBegin does nothing.
func (*Base) OnTestBatchBegin(int) {}

// OnTestBatchEnd does nothing.
func (*Base) OnTestBatchEnd(int, Logs) {}

// OnPredictBegin does nothing.
func (*Base) OnPredictBegin(Params) {}

// OnPredictEnd does nothing.
func (*Base) OnPredictEnd() {}

// OnPredictBatchBegin does nothing.
func (*Base) OnPredictBatchBegin(int) {}

// OnPredictBatchEnd does nothing.
func (*Base) OnPredictBatchEnd(int) {}

// LearningRateLogger is implemented by callbacks that, like Keras's
// ReduceLROnPlateau and LearningRateScheduler, add the epoch's learning
// rate to its logs as "learning_rate" (and so to the History).
type LearningRateLogger interface {
	LogsLearningRate() bool
}
