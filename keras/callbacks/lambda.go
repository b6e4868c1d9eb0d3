package callbacks

// Lambda builds a callback from plain functions, like
// keras.callbacks.LambdaCallback; nil functions are skipped.
type Lambda struct {
	Base
	TrainBegin      func(p Params)
	TrainEnd        func(logs Logs)
	EpochBegin      func(epoch int)
	EpochEnd        func(epoch int, logs Logs)
	TrainBatchBegin func(batch int)
	TrainBatchEnd   func(batch int, logs Logs)
	TestEnd         func(logs Logs)
	PredictBatchEnd func(batch int)
}

// OnTrainBegin calls TrainBegin.
func (l *Lambda) OnTrainBegin(p Params) {
	if l.TrainBegin != nil {
		l.TrainBegin(p)
	}
}

// OnTrainEnd calls TrainEnd.
func (l *Lambda) OnTrainEnd(logs Logs) {
	if l.TrainEnd != nil {
		l.TrainEnd(logs)
	}
}

// OnEpochBegin calls EpochBegin.
func (l *Lambda) OnEpochBegin(epoch int) {
	if l.EpochBegin != nil {
		l.EpochBegin(epoch)
	}
}

// OnEpochEnd calls EpochEnd.
func (l *Lambda) OnEpochEnd(epoch int, logs Logs) {
	if l.EpochEnd != nil {
		l.EpochEnd(epoch, logs)
	}
}

// OnTrainBatchBegin calls TrainBatchBegin.
func (l *Lambda) OnTrainBatchBegin(batch int) {
	if l.TrainBatchBegin != nil {
		l.TrainBatchBegin(batch)
	}
}

// OnTrainBatchEnd calls TrainBatchEnd.
func (l *Lambda) OnTrainBatchEnd(batch int, logs Logs) {
	if l.TrainBatchEnd != nil {
		l.TrainBatchEnd(batch, logs)
	}
}

// OnTestEnd calls TestEnd.
func (l *Lambda) OnTestEnd(logs Logs) {
	if l.TestEnd != nil {
		l.TestEnd(logs)
	}
}

// OnPredictBatchEnd calls PredictBatchEnd.
func (l *Lambda) OnPredictBatchEnd(batch int) {
	if l.PredictBatchEnd != nil {
		l.PredictBatchEnd(batch)
	}
}

// LambdaCallback is Lambda under Keras's name, keras.callbacks.LambdaCallback.
type LambdaCallback = Lambda
