package callbacks

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// ModelCheckpoint saves the model (or its weights) during training, like
// keras.callbacks.ModelCheckpoint: after every epoch, or every SaveFreq
// batches, and with SaveBestOnly only when the monitored quantity
// improved. The path may hold placeholders: "ckpt-{epoch:02d}-{val_loss:.2f}.keras".
// Saves are atomic, so the file at a path is always a complete model.
type ModelCheckpoint struct {
	Base
	opts ModelCheckpointOptions
	mon  *monitor

	epoch, batchesSinceSave int
	err                     error
}

// ModelCheckpointOptions are Keras's arguments of ModelCheckpoint.
type ModelCheckpointOptions struct {
	// Path ends in .keras, or in .weights.h5 with SaveWeightsOnly.
	Path            string
	Monitor         string // default "val_loss"
	SaveBestOnly    bool
	SaveWeightsOnly bool
	Mode            string // "auto" (default), "min", "max"
	// SaveFreq is the number of batches between saves; 0 saves at the end
	// of every epoch (Keras's "epoch").
	SaveFreq int
	// InitialValueThreshold, if set, is the value the first save must beat.
	InitialValueThreshold *float64
	Verbose               int
	Output                io.Writer // default os.Stdout
}

// NewModelCheckpoint checks the options and returns the callback.
func NewModelCheckpoint(o ModelCheckpointOptions) (*ModelCheckpoint, error) {
	if o.Monitor == "" {
		o.Monitor = "val_loss"
	}
	if o.SaveWeightsOnly && !strings.HasSuffix(o.Path, ".weights.h5") && !strings.HasSuffix(o.Path, ".safetensors") {
		return nil, fmt.Errorf("ModelCheckpoint: with SaveWeightsOnly the path must end in .weights.h5 (or .safetensors), got %q", o.Path)
	}
	if !o.SaveWeightsOnly && !strings.HasSuffix(o.Path, ".keras") {
		return nil, fmt.Errorf("ModelCheckpoint: the path must end in .keras (Keras's model format), got %q", o.Path)
	}
	if o.SaveFreq < 0 {
		return nil, fmt.Errorf("ModelCheckpoint: SaveFreq must be 0 (every epoch) or a number of batches, got %d", o.SaveFreq)
	}
	if err := checkMode(o.Mode); err != nil {
		return nil, fmt.Errorf("ModelCheckpoint: %w", err)
	}
	if o.InitialValueThreshold != nil {
		if err := checkFinite("InitialValueThreshold", *o.InitialValueThreshold); err != nil {
			return nil, fmt.Errorf("ModelCheckpoint: %w", err)
		}
	}
	if o.Output == nil {
		o.Output = os.Stdout
	}
	c := &ModelCheckpoint{opts: o}
	if o.SaveBestOnly {
		mon, err := newMonitor(o.Monitor, o.Mode, 0)
		if err != nil {
			return nil, fmt.Errorf("ModelCheckpoint: %w", err)
		}
		c.mon = mon
		if o.InitialValueThreshold != nil {
			mon.best = *o.InitialValueThreshold
		}
	}
	return c, nil
}

// Err reports a checkpoint that could not be written.
func (c *ModelCheckpoint) Err() error { return c.err }

// OnEpochBegin records the epoch.
func (c *ModelCheckpoint) OnEpochBegin(epoch int) { c.epoch = epoch }

// OnTrainBatchEnd saves every SaveFreq batches.
func (c *ModelCheckpoint) OnTrainBatchEnd(batch int, logs Logs) {
	if c.opts.SaveFreq == 0 {
		return
	}
	if loss, ok := logs.Get("loss"); ok && (math.IsNaN(loss) || math.IsInf(loss, 0)) {
		return // a failed batch: its weights were not adopted
	}
	c.batchesSinceSave++
	if c.batchesSinceSave >= c.opts.SaveFreq {
		c.batchesSinceSave = 0
		c.save(c.epoch, batch+1, logs)
	}
}

// OnEpochEnd saves when SaveFreq is 0 (every epoch).
func (c *ModelCheckpoint) OnEpochEnd(epoch int, logs Logs) {
	if c.opts.SaveFreq == 0 {
		c.save(epoch, 0, logs)
	}
}

func (c *ModelCheckpoint) save(epoch, batch int, logs Logs) {
	if c.err != nil || !c.Model().IsChief() { // rank 0 saves for a data-parallel job
		return
	}
	path, err := FormatPath(c.opts.Path, epoch+1, batch, logs)
	if err != nil {
		c.fail(err)
		return
	}
	out := c.opts.Output
	if c.mon != nil {
		current, ok := logs.Get(c.opts.Monitor)
		if !ok {
			c.fail(c.mon.missing(logs))
			return
		}
		if !c.mon.improves(current, c.mon.best) {
			if c.opts.Verbose > 0 {
				fmt.Fprintf(out, "\nEpoch %d: %s did not improve from %.5f\n", epoch+1, c.opts.Monitor, c.mon.best)
			}
			return
		}
		if c.opts.Verbose > 0 {
			fmt.Fprintf(out, "\nEpoch %d: %s improved from %.5f to %.5f, saving model to %s\n", epoch+1, c.opts.Monitor, c.mon.best, current, path)
		}
		c.mon.best = current
	} else if c.opts.Verbose > 0 {
		fmt.Fprintf(out, "\nEpoch %d: saving model to %s\n", epoch+1, path)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			c.fail(err)
			return
		}
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		c.fail(errors.New("the path is a directory: give ModelCheckpoint a file path"))
		return
	}
	if c.opts.SaveWeightsOnly {
		err = c.Model().SaveWeights(path)
	} else {
		err = c.Model().Save(path)
	}
	if err != nil {
		c.fail(err)
	}
}

func (c *ModelCheckpoint) fail(err error) {
	if c.err == nil {
		c.err = fmt.Errorf("ModelCheckpoint: %w", err)
		c.Model().StopTraining()
	}
}
