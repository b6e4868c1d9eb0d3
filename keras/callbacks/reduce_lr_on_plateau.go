package callbacks

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

// ReduceLROnPlateau lowers the learning rate when a monitored quantity
// has stopped improving, like keras.callbacks.ReduceLROnPlateau. The new
// rate applies from the next training step (the learning rate is an input
// of the compiled step).
type ReduceLROnPlateau struct {
	Base
	opts ReduceLROnPlateauOptions

	mon            *monitor
	wait, cooldown int
	err            error
}

// ReduceLROnPlateauOptions are Keras's arguments of ReduceLROnPlateau;
// zero values mean Keras's defaults.
type ReduceLROnPlateauOptions struct {
	Monitor  string   // default "val_loss"
	Factor   float64  // new rate = rate * Factor; default 0.1; must be < 1
	Patience *int     // epochs without improvement; default 10 (nil)
	Mode     string   // "auto" (default: max if the name contains "acc"), "min", "max"
	MinDelta *float64 // default 1e-4 (nil)
	Cooldown int      // epochs to wait after a reduction
	MinLR    float64  // lower bound on the rate
	Verbose  int
	Output   io.Writer // default os.Stdout
}

// NewReduceLROnPlateau checks the options and returns the callback.
func NewReduceLROnPlateau(o ReduceLROnPlateauOptions) (*ReduceLROnPlateau, error) {
	if o.Monitor == "" {
		o.Monitor = "val_loss"
	}
	for name, v := range map[string]float64{"Factor": o.Factor, "MinLR": o.MinLR} {
		if err := checkFinite(name, v); err != nil {
			return nil, fmt.Errorf("ReduceLROnPlateau: %w", err)
		}
	}
	if o.MinDelta != nil {
		if err := checkFinite("MinDelta", *o.MinDelta); err != nil {
			return nil, fmt.Errorf("ReduceLROnPlateau: %w", err)
		}
	}
	if o.Factor == 0 {
		o.Factor = 0.1
	}
	if o.Factor >= 1 || o.Factor < 0 {
		return nil, fmt.Errorf("ReduceLROnPlateau does not support a factor >= 1 (or negative); got %v", o.Factor)
	}
	if o.Patience == nil {
		p := 10
		o.Patience = &p
	}
	if o.MinDelta == nil {
		d := 1e-4
		o.MinDelta = &d
	}
	if *o.Patience < 0 || o.Cooldown < 0 || o.MinLR < 0 {
		return nil, fmt.Errorf("ReduceLROnPlateau: Patience, Cooldown and MinLR must be 0 or more")
	}
	if o.Output == nil {
		o.Output = os.Stdout
	}
	mode := o.Mode
	switch mode {
	case ModeMin, ModeMax:
	case ModeAuto, "":
		mode = ModeMin // Keras's rule for this callback: max if the name contains "acc"
		if strings.Contains(o.Monitor, "acc") {
			mode = ModeMax
		}
	default:
		return nil, fmt.Errorf("ReduceLROnPlateau: unknown mode %q: use %q, %q or %q", o.Mode, ModeAuto, ModeMin, ModeMax)
	}
	mon, err := newMonitor(o.Monitor, mode, *o.MinDelta)
	if err != nil {
		return nil, fmt.Errorf("ReduceLROnPlateau: %w", err)
	}
	return &ReduceLROnPlateau{opts: o, mon: mon}, nil
}

// Err reports a missing monitored quantity or a rate that could not be set.
func (r *ReduceLROnPlateau) Err() error { return r.err }

// OnTrainBegin resets the counters.
func (r *ReduceLROnPlateau) OnTrainBegin(Params) {
	r.mon.reset()
	r.wait, r.cooldown, r.err = 0, 0, nil
}

// OnEpochEnd follows Keras's ReduceLROnPlateau.on_epoch_end.
func (r *ReduceLROnPlateau) OnEpochEnd(epoch int, logs Logs) {
	current, ok := logs.Get(r.opts.Monitor)
	if !ok {
		if r.err == nil {
			r.err = fmt.Errorf("ReduceLROnPlateau: the monitored quantity %q is not in the logs (they have %v)", r.opts.Monitor, logs.Names())
			r.Model().StopTraining()
		}
		return
	}
	if r.cooldown > 0 {
		r.cooldown--
		r.wait = 0
	}
	if r.mon.improves(current, r.mon.best) {
		r.mon.best, r.wait = current, 0
		return
	}
	if r.cooldown > 0 {
		return
	}
	r.wait++
	if r.wait < *r.opts.Patience {
		return
	}
	old, err := r.Model().LearningRate()
	if err != nil {
		r.fail(err)
		return
	}
	if old > float64(float32(r.opts.MinLR)) {
		lr := math.Max(old*r.opts.Factor, r.opts.MinLR)
		if err := r.Model().SetLearningRate(lr); err != nil {
			r.fail(err)
			return
		}
		if r.opts.Verbose > 0 {
			fmt.Fprintf(r.opts.Output, "\nEpoch %d: ReduceLROnPlateau reducing learning rate to %v.\n", epoch+1, lr)
		}
		r.cooldown, r.wait = r.opts.Cooldown, 0
	}
}

func (r *ReduceLROnPlateau) fail(err error) {
	if r.err == nil {
		r.err = fmt.Errorf("ReduceLROnPlateau: %w", err)
		r.Model().StopTraining()
	}
}

// LogsLearningRate makes Fit add "learning_rate" to each epoch's logs, as
// Keras's ReduceLROnPlateau does.
func (*ReduceLROnPlateau) LogsLearningRate() bool { return true }
