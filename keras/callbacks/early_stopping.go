package callbacks

import (
	"fmt"
	"io"
	"os"
)

// EarlyStopping stops training when a monitored quantity has stopped
// improving, like keras.callbacks.EarlyStopping. Build it with
// NewEarlyStopping; the zero values of the options are Keras's defaults.
type EarlyStopping struct {
	Base
	opts EarlyStoppingOptions
	mon  *monitor

	wait, stoppedEpoch, bestEpoch int
	bestWeights                   [][]float32
	err                           error
}

// EarlyStoppingOptions are Keras's arguments of EarlyStopping.
type EarlyStoppingOptions struct {
	Monitor  string  // default "val_loss"
	MinDelta float64 // an improvement must exceed this
	Patience int     // epochs without improvement before stopping
	Mode     string  // "auto" (default), "min" or "max"
	// Baseline, if set, is a value the quantity must beat for the wait to
	// restart.
	Baseline *float64
	// RestoreBestWeights sets the weights of the best epoch at the end of
	// training (whether or not training stopped early, as Keras 3 does).
	RestoreBestWeights bool
	// StartFromEpoch is the number of epochs before improvement is
	// watched (a warm-up).
	StartFromEpoch int
	Verbose        int
	Output         io.Writer // for Verbose messages; default os.Stdout
}

// NewEarlyStopping checks the options and returns the callback.
func NewEarlyStopping(o EarlyStoppingOptions) (*EarlyStopping, error) {
	if o.Monitor == "" {
		o.Monitor = "val_loss"
	}
	if o.Patience < 0 || o.StartFromEpoch < 0 {
		return nil, fmt.Errorf("EarlyStopping: Patience and StartFromEpoch must be 0 or more, got %d and %d", o.Patience, o.StartFromEpoch)
	}
	if o.Output == nil {
		o.Output = os.Stdout
	}
	if o.Baseline != nil {
		if err := checkFinite("Baseline", *o.Baseline); err != nil {
			return nil, fmt.Errorf("EarlyStopping: %w", err)
		}
	}
	mon, err := newMonitor(o.Monitor, o.Mode, o.MinDelta)
	if err != nil {
		return nil, fmt.Errorf("EarlyStopping: %w", err)
	}
	return &EarlyStopping{opts: o, mon: mon}, nil
}

// StoppedEpoch is the epoch (from 0) at which training was stopped, or 0.
func (e *EarlyStopping) StoppedEpoch() int { return e.stoppedEpoch }

// BestEpoch is the epoch (from 0) with the best monitored value.
func (e *EarlyStopping) BestEpoch() int { return e.bestEpoch }

// Err reports a failure to read or restore weights.
func (e *EarlyStopping) Err() error { return e.err }

// OnTrainBegin resets the state, so that the callback can be reused.
func (e *EarlyStopping) OnTrainBegin(Params) {
	e.wait, e.stoppedEpoch, e.bestEpoch, e.bestWeights, e.err = 0, 0, 0, nil, nil
	e.mon.reset()
}

// OnEpochEnd follows Keras's EarlyStopping.on_epoch_end.
func (e *EarlyStopping) OnEpochEnd(epoch int, logs Logs) {
	current, ok := logs.Get(e.opts.Monitor)
	if !ok {
		if e.err == nil {
			e.err = fmt.Errorf("EarlyStopping: %w", e.mon.missing(logs))
			e.Model().StopTraining()
		}
		return
	}
	if epoch < e.opts.StartFromEpoch {
		return
	}
	if e.opts.RestoreBestWeights && e.bestWeights == nil {
		e.bestWeights, e.bestEpoch = e.weights(), epoch
	}
	e.wait++
	if e.mon.improves(current, e.mon.best) {
		e.mon.best, e.bestEpoch = current, epoch
		if e.opts.RestoreBestWeights {
			e.bestWeights = e.weights()
		}
		if e.opts.Baseline == nil || e.mon.improves(current, *e.opts.Baseline) {
			e.wait = 0
		}
		return
	}
	if e.wait >= e.opts.Patience && epoch > 0 {
		e.stoppedEpoch = epoch
		e.Model().StopTraining()
	}
}

func (e *EarlyStopping) weights() [][]float32 {
	w, err := e.Model().GetWeights()
	if err != nil && e.err == nil {
		e.err = fmt.Errorf("EarlyStopping: reading the weights: %w", err)
	}
	return w
}

// OnTrainEnd reports the stop and restores the best weights.
func (e *EarlyStopping) OnTrainEnd(Logs) {
	if e.stoppedEpoch > 0 && e.opts.Verbose > 0 {
		fmt.Fprintf(e.opts.Output, "Epoch %d: early stopping\n", e.stoppedEpoch+1)
	}
	if e.opts.RestoreBestWeights && e.bestWeights != nil {
		if e.opts.Verbose > 0 {
			fmt.Fprintf(e.opts.Output, "Restoring model weights from the end of the best epoch: %d.\n", e.bestEpoch+1)
		}
		if err := e.Model().SetWeights(e.bestWeights); err != nil && e.err == nil {
			e.err = fmt.Errorf("EarlyStopping: restoring the best weights: %w", err)
		}
	}
}
