package keras

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/kerasgo/kerasgo/internal/inputcheck"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// FitOptions configure training, like the arguments of Keras's model.fit.
type FitOptions struct {
	// Epochs is the number of passes over the data. Zero trains nothing,
	// as Keras's epochs=0 does (Keras's default is 1: give it).
	Epochs int
	// InitialEpoch is the epoch to start at (from 0), to resume an earlier
	// run: epochs InitialEpoch..Epochs-1 are trained, with the shuffling
	// order those epochs would have had. A BackupAndRestore callback sets
	// it from its backup.
	InitialEpoch int
	// BatchSize is the number of samples per step; 0 means Keras's
	// default, 32. Negative is an error.
	BatchSize int
	// StepsPerEpoch makes each epoch that many batches, taken in turn
	// from passes over the data (Keras's steps_per_epoch); an epoch that
	// reaches the end of a pass stops there and the next starts a new
	// (reshuffled) pass. 0 means one pass per epoch.
	StepsPerEpoch int
	// Verbose is Keras's verbosity: ProgressBar (1; updated in place on a
	// terminal, one line per epoch otherwise), OneLinePerEpoch (2), or
	// Silent. The zero value is Keras's default "auto", a progress bar:
	// silence it with Silent (Keras's verbose=0).
	Verbose int
	// NoShuffle keeps the sample order; by default samples are shuffled
	// every epoch.
	NoShuffle bool
	// Seed makes the shuffling reproducible; 0 (the default, Keras's
	// seed=None) shuffles differently each run. Give the same seed to
	// resume a run with BackupAndRestore.
	Seed int64
	// ValidationSplit holds out this fraction of the samples (the last
	// ones, before shuffling, as Keras does) to validate on after each
	// epoch.
	ValidationSplit float64
	// ValidationData is validated on after each epoch; it overrides
	// ValidationSplit.
	ValidationData *Data
	// ValidationFreq validates every ValidationFreq epochs (Keras's
	// validation_freq); 0 means every epoch.
	ValidationFreq int
	// SampleWeight weighs each sample's loss (Keras's sample_weight): an
	// Array of shape (samples,) for a model with one output, or Arrays or
	// NamedArrays with one per output. The loss is then
	// sum(loss * weight) / samples, as Keras's default reduction.
	SampleWeight ArraySet
	// ClassWeight weighs each sample's loss by its class (Keras's
	// class_weight; one output only; classes not listed weigh 1).
	ClassWeight map[int]float64
	// Callbacks are called as Keras calls them; a progress bar is added
	// unless Verbose is Silent.
	Callbacks []callbacks.Callback
	// Output receives the progress output; default os.Stdout.
	Output io.Writer
}

// Data pairs inputs with targets: an Array each for a model with one
// input and one output, or Arrays or NamedArrays (see ArraySet); and,
// optionally, sample weights (see FitOptions.SampleWeight).
type Data struct {
	X, Y         ArraySet
	SampleWeight ArraySet
}

// EvaluateOptions configure Evaluate, like the arguments of Keras's
// model.evaluate.
type EvaluateOptions struct {
	BatchSize int // 0 means 32; negative is an error
	// SampleWeight weighs each sample's loss, as FitOptions.SampleWeight.
	SampleWeight ArraySet
	// Verbose: the zero value (Keras's "auto"), ProgressBar or
	// OneLinePerEpoch print one line with the results, as Keras does;
	// Silent prints nothing.
	Verbose   int
	Callbacks []callbacks.Callback
	Output    io.Writer // default os.Stdout
}

// PredictOptions configure Predict, like the arguments of Keras's
// model.predict.
type PredictOptions struct {
	BatchSize int // 0 means 32; negative is an error
	Callbacks []callbacks.Callback
}

// History records the logs of every epoch, like Keras's History.
type History struct {
	Epochs []int                // 0, 1, 2, ...
	Logs   map[string][]float64 // "loss", "accuracy", "val_loss", ...
	order  []string
}

// Names returns the logged quantities in Keras's order.
func (h *History) Names() []string { return h.order }

func (h *History) add(epoch int, logs callbacks.Logs) {
	if h.Logs == nil {
		h.Logs = map[string][]float64{}
	}
	h.Epochs = append(h.Epochs, epoch)
	for _, l := range logs {
		if _, ok := h.Logs[l.Name]; !ok {
			h.order = append(h.order, l.Name)
		}
		h.Logs[l.Name] = append(h.Logs[l.Name], l.Value)
	}
}

// ErrNaNLoss is wrapped by the error Fit returns when the loss becomes NaN
// or infinite: training stops and the model keeps the weights from before
// the failing batch (Keras's TerminateOnNaN, always on; a callback that
// stops training on the NaN, such as callbacks.TerminateOnNaN, makes Fit
// return without this error).
var ErrNaNLoss = errors.New("loss is NaN")

// Verbosity levels of FitOptions.Verbose and EvaluateOptions.Verbose,
// Keras's verbose argument.
const (
	VerboseAuto     = 0  // Keras's "auto", the default: ProgressBar
	Silent          = -1 // Keras's verbose=0
	ProgressBar     = 1
	OneLinePerEpoch = 2
)

// verbosity resolves a Verbose option.
func verbosity(v int) (int, error) {
	switch v {
	case VerboseAuto:
		return ProgressBar, nil
	case Silent, ProgressBar, OneLinePerEpoch:
		return v, nil
	}
	return 0, fmt.Errorf("unknown verbosity Verbose %d: use keras.Silent, keras.ProgressBar or keras.OneLinePerEpoch (the zero value is Keras's \"auto\", a progress bar)", v)
}

// resolveSeed returns seed, or a fresh random one for 0 (Keras's
// seed=None: every run differs).
func resolveSeed(seed int64) int64 {
	if seed == 0 {
		return drawSeed()
	}
	return seed
}

// batchSize checks a BatchSize option: 0 means Keras's default, 32.
func batchSize(n int) (int, error) {
	switch {
	case n < 0:
		return 0, fmt.Errorf("BatchSize must be positive (or 0 for Keras's default, 32), got %d", n)
	case n == 0:
		return 32, nil
	}
	return n, nil
}

// prepare builds the model from x if needed, resolves x (and y, unless
// nil) into one array per input (and output), checks them against the
// model and its losses, and readies the engine. It returns the data, the
// compiled configuration (nil for a prediction on a model never
// compiled: Keras predicts without compile) and the engine to run on.
func (m *Model) prepare(x, y ArraySet, what string) (hostData, *compiled, *binding, error) {
	return m.prepareData(x, y, what, false)
}

// prepareData is prepare; with dataChecked, the layers' checks of the
// input data (checkInputData) are skipped: the caller ran CheckInputs on
// every part of x (the model server, per request, before batching).
func (m *Model) prepareData(x, y ArraySet, what string, dataChecked bool) (hostData, *compiled, *binding, error) {
	d, c, err := m.resolveData(x, y, what, dataChecked)
	if err != nil {
		return hostData{}, nil, nil, err
	}
	bind, err := m.engine()
	return d, c, bind, err
}

func (m *Model) resolveData(x, y ArraySet, what string, dataChecked bool) (hostData, *compiled, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.compiled
	if c != nil && m.Built() && ((c.opts.TrainStep != nil && (what == "Fit" || what == "TrainOnBatch")) ||
		(c.opts.TestStep != nil && (what == "Evaluate" || what == "TestOnBatch" || what == "validation"))) {
		d, err := stepData(x, y, what)
		return d, c, err
	}
	if c == nil && y != nil {
		return hostData{}, nil, fmt.Errorf("model %q must be compiled before %s: call Compile", m.Name, what)
	}
	if x == nil {
		return hostData{}, nil, fmt.Errorf("%s got no x: give the input data", what)
	}
	if !m.Built() {
		a, ok := x.(Array)
		if !ok {
			return hostData{}, nil, fmt.Errorf("%s: the model is not built yet, so it has one input: give x as one Array", what)
		}
		if err := a.Validate("x"); err != nil {
			return hostData{}, nil, err
		}
		if err := m.BuildInput(a.Shape[1:]...); err != nil {
			return hostData{}, nil, err
		}
	}
	xs, err := x.ForNames(m.InputNames(), "input")
	if err != nil {
		return hostData{}, nil, fmt.Errorf("%s: x: %w", what, err)
	}
	n := -1
	for i, a := range xs {
		in := m.inputs[i]
		label := "x"
		if len(xs) > 1 {
			label = fmt.Sprintf("x for input %q", in.Layer().Common().Name)
		}
		if err := a.Validate(label); err != nil {
			return hostData{}, nil, err
		}
		if a.Samples() == 0 {
			return hostData{}, nil, fmt.Errorf("%s got no samples: %s has shape %v", what, label, backend.Shape(a.Shape))
		}
		if n >= 0 && a.Samples() != n {
			return hostData{}, nil, fmt.Errorf("%s has %d samples but the first input's data has %d: give every input the same samples", label, a.Samples(), n)
		}
		n = a.Samples()
		want := in.Shape()
		a = adjustRank(a, want)
		if !fitsShape(a.Shape, want) {
			return hostData{}, nil, fmt.Errorf("input %d of layer %q is incompatible with the model: expected shape %v, received data of shape %v: reshape the data to %s",
				i, in.Layer().Common().Name, want, backend.Shape(a.Shape), want[1:].WithLeading("samples"))
		}
		if a, err = asInputDType(a, in, label); err != nil {
			return hostData{}, nil, err
		}
		xs[i] = a
		if dataChecked {
			continue
		}
		if err := m.checkInputData(in, a, label); err != nil {
			return hostData{}, nil, err
		}
	}
	d := hostData{x: xs}
	if y != nil {
		ys, err := y.ForNames(m.OutputNames(), "output")
		if err != nil {
			return hostData{}, nil, fmt.Errorf("%s: y: %w", what, err)
		}
		for i, a := range ys {
			h := c.heads[i]
			label := "y"
			if len(ys) > 1 {
				label = fmt.Sprintf("y for output %q", h.name)
			}
			if err := a.Validate(label); err != nil {
				return hostData{}, nil, err
			}
			if a, err = asFloats(a, label); err != nil {
				return hostData{}, nil, err
			}
			a = expandTargetRank(a, m.outputs[i].Shape())
			ys[i] = a
			if a.Samples() != n {
				return hostData{}, nil, fmt.Errorf("x has %d samples but %s has %d: give one target per sample", n, label, a.Samples())
			}
			yShape := append(backend.Shape{-1}, a.Shape[1:]...)
			if err := h.resolveMetrics(yShape, m.outputs[i].Shape()); err != nil {
				return hostData{}, nil, err
			}
			if h.loss == nil {
				continue
			}
			if err := h.loss.CheckTargets(a.Data, backend.Shape(a.Shape), m.outputs[i].Shape()); err != nil {
				if len(ys) > 1 {
					return hostData{}, nil, fmt.Errorf("output %q: %s: %w", h.name, h.loss.Name(), err)
				}
				return hostData{}, nil, fmt.Errorf("%s: %w", h.loss.Name(), err)
			}
		}
		d.y = ys
	}
	return d, c, nil
}

// Fit trains the model on (x, y), like Keras's model.fit. It stops with an
// error when ctx is cancelled or the loss becomes NaN, returning the history
// so far; the weights are then those of the last good step. A callback may
// stop training early (callbacks.Model.StopTraining).
func (m *Model) Fit(ctx context.Context, x, y ArraySet, opts FitOptions) (_ *History, retErr error) {
	if err := checkCallbacks(opts.Callbacks); err != nil {
		return nil, fmt.Errorf("FitOptions.Callbacks: %w", err)
	}
	if opts.Epochs < 0 {
		return nil, fmt.Errorf("FitOptions.Epochs must be 0 or more, got %d", opts.Epochs)
	}
	if opts.InitialEpoch < 0 {
		return nil, fmt.Errorf("FitOptions.InitialEpoch must be 0 or more, got %d", opts.InitialEpoch)
	}
	batch, err := batchSize(opts.BatchSize)
	if err != nil {
		return nil, err
	}
	if opts.Output == nil {
		opts.Output = os.Stdout
	}
	if opts.ValidationFreq < 0 {
		return nil, fmt.Errorf("FitOptions.ValidationFreq must be 0 (every epoch) or a positive number of epochs, got %d", opts.ValidationFreq)
	}
	verbose, err := verbosity(opts.Verbose)
	if err != nil {
		return nil, err
	}
	if opts.StepsPerEpoch < 0 {
		return nil, fmt.Errorf("FitOptions.StepsPerEpoch must be 0 (a pass per epoch) or positive, got %d", opts.StepsPerEpoch)
	}
	dp := m.dist()
	rank, world := 0, 1
	if dp != nil {
		rank, world = dp.Rank(), dp.WorldSize()
	}
	var (
		train trainingEpochs
		c     *compiled
		bind  *binding
		val   func(context.Context, *run) (callbacks.Logs, error)
	)
	if b, ok := x.(Batches); ok {
		if err := batchesFitOptions(y, opts); err != nil {
			return nil, err
		}
		src, cc, bb, err := m.startBatches(ctx, b, opts.ClassWeight)
		if err != nil {
			return nil, err
		}
		defer m.endFit()
		defer src.closeInto(&retErr)
		if dp == nil {
			src.warn = opts.Output
		}
		if train, err = newBatchEpochs(src, opts.StepsPerEpoch, !opts.NoShuffle, rank, world); err != nil {
			return nil, err
		}
		c, bind = cc, bb
	} else {
		d, cc, bb, err := m.startTraining(x, y, "Fit", opts.SampleWeight, opts.ClassWeight, batch)
		if err != nil {
			return nil, err
		}
		defer m.endFit()
		if opts.ValidationSplit != 0 && opts.ValidationData == nil {
			if !(opts.ValidationSplit >= 0 && opts.ValidationSplit < 1) { // NaN fails both
				return nil, fmt.Errorf("ValidationSplit must be in [0, 1), got %v", opts.ValidationSplit)
			}
			n := d.samples()
			at := int(float64(n) * (1 - opts.ValidationSplit))
			if at == 0 || at == n {
				return nil, fmt.Errorf("ValidationSplit %v of %d samples leaves no samples on one side", opts.ValidationSplit, n)
			}
			v := d.rows(at, n)
			d = d.rows(0, at)
			val = func(ctx context.Context, r *run) (callbacks.Logs, error) { return r.evaluateArrays(ctx, v, batch) }
		}
		train = &arrayEpochs{d: d, batch: batch, spe: opts.StepsPerEpoch, shuffle: !opts.NoShuffle, rank: rank, world: world}
		c, bind = cc, bb
	}
	if opts.ValidationData != nil {
		var closeVal func() error
		if val, closeVal, err = m.validation(ctx, c, opts.ValidationData, batch); err != nil {
			return nil, err
		}
		defer func() {
			if err := closeVal(); err != nil && retErr == nil {
				retErr = fmt.Errorf("validation data: %w", err)
			}
		}()
	}
	if !m.chief() {
		verbose = 0 // rank 0 prints progress
	}
	cbs := opts.Callbacks
	if verbose > 0 {
		cbs = append([]callbacks.Callback{callbacks.NewProgbar(opts.Output, verbose)}, cbs...)
	}
	m.stopRequested.Store(false)
	run := m.newRun(bind, c, cbs)
	m.resume = resumePoint{epoch: opts.InitialEpoch}
	run.each("OnTrainBegin", func(cb callbacks.Callback) {
		cb.OnTrainBegin(callbacks.Params{Epochs: opts.Epochs, Steps: train.stepsPerEpoch()})
	})
	if err := run.failure(); err != nil {
		return nil, err
	}
	hist := &History{}
	seed := resolveSeed(opts.Seed)
	if dp != nil {
		if err := m.agreeOnTheJob(dp, train); err != nil {
			return nil, err
		}
		if err := m.syncFromChief(c, dp); err != nil {
			return nil, err
		}
		if seed, err = agreedSeed(dp, seed); err != nil {
			return nil, err
		}
		if err := m.agreeOnResumePoint(dp); err != nil {
			return nil, err
		}
	}
	train.start(seed)
	from := m.resume
	for epoch := 0; epoch < from.epoch && epoch < opts.Epochs; epoch++ {
		train.skipEpoch() // the skipped epochs' batches and shuffles
	}
	logLR := false
	for _, cb := range cbs {
		if l, ok := cb.(callbacks.LearningRateLogger); ok && l.LogsLearningRate() {
			logLR = true
		}
	}
	var last callbacks.Logs
	for epoch := from.epoch; epoch < opts.Epochs && !m.stopRequested.Load() && run.panicked == nil; epoch++ {
		run.each("OnEpochBegin", func(cb callbacks.Callback) { cb.OnEpochBegin(epoch) })
		lr := c.learningRate(m.iterations(c)) // the rate this epoch trains with
		f, err := train.epoch(ctx, from.batch)
		if err != nil {
			return hist, fmt.Errorf("cannot resume at batch %d of epoch %d: %w", from.batch+1, from.epoch+1, err)
		}
		logs, steps, err := run.trainEpoch(ctx, f, epoch, from)
		f.close()
		from = resumePoint{}
		if err != nil {
			return hist, err
		}
		if steps == 0 {
			return hist, fmt.Errorf("epoch %d got no batches: the generator yielded none (a generator ranged over a second time must start over, as a tf.data.Dataset does)", epoch+1)
		}
		if val != nil && !m.stopRequested.Load() && (epoch+1)%max(opts.ValidationFreq, 1) == 0 {
			vlogs, err := val(ctx, run)
			if err != nil {
				return hist, fmt.Errorf("validating after epoch %d: %w", epoch+1, err)
			}
			for _, l := range vlogs {
				logs = append(logs, callbacks.Log{Name: "val_" + l.Name, Value: l.Value})
			}
		}
		if logLR {
			logs = append(logs, callbacks.Log{Name: "learning_rate", Value: lr})
		}
		run.each("OnEpochEnd", func(cb callbacks.Callback) { cb.OnEpochEnd(epoch, logs) })
		hist.add(epoch, logs)
		last = logs
	}
	if err := m.finalizeEMA(c); err != nil {
		return hist, err
	}
	run.each("OnTrainEnd", func(cb callbacks.Callback) { cb.OnTrainEnd(last) })
	return hist, run.failure()
}

// startTraining readies a Fit or a TrainOnBatch on (x, y) with batches
// of batch samples (0: one batch of all of them): it resolves the data and its sample weights, marks
// the model as training (the caller must call endFit when it returns no
// error), checks the trainable set, and traces a custom step once.
func (m *Model) startTraining(x, y ArraySet, what string, sampleWeight ArraySet, classWeight map[int]float64, batch int) (hostData, *compiled, *binding, error) {
	if y == nil && !m.hasCustomStep(trainStep) {
		return hostData{}, nil, nil, fmt.Errorf("%s got no y: give the targets", what)
	}
	d, c, bind, err := m.prepare(x, y, what)
	if err != nil {
		return hostData{}, nil, nil, err
	}
	if err := m.startFit(c); err != nil {
		return hostData{}, nil, nil, err
	}
	if d.sw, err = m.sampleWeights(c, d, sampleWeight, classWeight); err == nil {
		if err = m.checkTrainable(c); err == nil {
			if batch <= 0 {
				batch = d.samples()
			}
			err = m.planTrainStep(c, d.rows(0, min(batch, d.samples())))
		}
	}
	if err != nil {
		m.endFit()
		return hostData{}, nil, nil, err
	}
	return d, c, bind, nil
}

// startBatches readies a Fit on Batches: it loads and resolves the first
// batch (building the model), marks the model as training (the caller
// must call endFit when it returns no error), checks the trainable set,
// and traces a custom step once.
func (m *Model) startBatches(ctx context.Context, b Batches, classWeight map[int]float64) (*batchSource, *compiled, *binding, error) {
	src, err := m.openBatches(ctx, b, "Fit", true, classWeight)
	if err != nil {
		return nil, nil, nil, err
	}
	c := src.c
	bind, err := m.engine()
	if err == nil {
		err = m.startFit(c)
	}
	if err != nil {
		src.close()
		return nil, nil, nil, err
	}
	if err = m.checkTrainable(c); err == nil {
		err = m.planTrainStep(c, src.sample)
	}
	if err != nil {
		m.endFit()
		src.close()
		return nil, nil, nil, err
	}
	return src, c, bind, nil
}

// batchesFitOptions refuses what Fit cannot take beside Batches, as Keras
// refuses it beside a PyDataset: the targets, sample weights and batch
// size are the batches', and a split needs arrays.
func batchesFitOptions(y ArraySet, opts FitOptions) error {
	switch {
	case y != nil:
		return errors.New("Fit got y beside keras.Batches: the targets come in the batches (Batch.Y); give y nil")
	case opts.SampleWeight != nil:
		return errors.New("FitOptions.SampleWeight does not go with keras.Batches: give the weights in the batches (Batch.SampleWeight)")
	case opts.BatchSize != 0:
		return errors.New("FitOptions.BatchSize does not go with keras.Batches: the Dataset or generator makes the batches; leave it 0")
	case opts.ValidationSplit != 0:
		return errors.New("FitOptions.ValidationSplit needs arrays, as in Keras: with keras.Batches, give ValidationData")
	}
	return nil
}

// validation resolves FitOptions.ValidationData into the evaluation to
// run after an epoch, and what to call when Fit ends (it stops a
// generator's pass that no validation has read yet).
func (m *Model) validation(ctx context.Context, c *compiled, vd *Data, batch int) (func(context.Context, *run) (callbacks.Logs, error), func() error, error) {
	if b, ok := vd.X.(Batches); ok {
		if vd.Y != nil || vd.SampleWeight != nil {
			return nil, nil, errors.New("validation data: ValidationData with keras.Batches as X takes no Y or SampleWeight: they come in the batches")
		}
		src, err := m.openBatches(ctx, b, "validation", true, nil)
		if err != nil {
			return nil, nil, fmt.Errorf("validation data: %w", err)
		}
		return func(ctx context.Context, r *run) (_ callbacks.Logs, retErr error) {
			defer src.closeInto(&retErr) // each validation is a pass of its own
			f, err := src.evalFeed(ctx)
			if err != nil {
				return nil, err
			}
			defer f.close()
			return r.evaluate(ctx, f, src.sample)
		}, src.close, nil
	}
	if vd.Y == nil {
		return nil, nil, errors.New("ValidationData has no Y: give the validation targets")
	}
	v, _, err := m.resolveData(vd.X, vd.Y, "validation", false)
	if err != nil {
		return nil, nil, fmt.Errorf("validation data: %w", err)
	}
	if v.sw, err = m.sampleWeights(c, v, vd.SampleWeight, nil); err != nil {
		return nil, nil, fmt.Errorf("validation data: %w", err)
	}
	return func(ctx context.Context, r *run) (callbacks.Logs, error) { return r.evaluateArrays(ctx, v, batch) }, func() error { return nil }, nil
}

// startFit marks the model as training, so that a second Fit or a
// Compile meanwhile is an error rather than a corrupted model; c must
// still be the model's configuration (a Compile may have come between).
func (m *Model) startFit(c *compiled) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fitting {
		return fmt.Errorf("model %q is already training (Fit is running in another goroutine): one Fit at a time; Predict, Evaluate, GetWeights and Save may run beside it", m.Name)
	}
	if m.compiled != c {
		return fmt.Errorf("model %q was compiled again while Fit started: call Fit again", m.Name)
	}
	m.fitting = true
	return nil
}

func (m *Model) endFit() {
	m.mu.Lock()
	m.fitting = false
	m.mu.Unlock()
}

// Evaluate returns the loss and metrics on (x, y), like Keras's
// model.evaluate.
func (m *Model) Evaluate(ctx context.Context, x, y ArraySet, opts EvaluateOptions) (callbacks.Logs, error) {
	if err := checkCallbacks(opts.Callbacks); err != nil {
		return nil, fmt.Errorf("EvaluateOptions.Callbacks: %w", err)
	}
	batch, err := batchSize(opts.BatchSize)
	if err != nil {
		return nil, err
	}
	if b, ok := x.(Batches); ok {
		return m.evaluateBatches(ctx, b, y, opts)
	}
	if y == nil {
		return nil, errors.New("Evaluate got no y: give the targets")
	}
	d, c, bind, err := m.prepare(x, y, "Evaluate")
	if err != nil {
		return nil, err
	}
	if d.sw, err = m.sampleWeights(c, d, opts.SampleWeight, nil); err != nil {
		return nil, err
	}
	cbs, err := evaluateCallbacks(opts)
	if err != nil {
		return nil, err
	}
	return m.newRun(bind, c, cbs).evaluateArrays(ctx, d, batch)
}

// evaluateCallbacks returns Evaluate's callbacks, with a progress bar
// unless it is Silent.
func evaluateCallbacks(opts EvaluateOptions) ([]callbacks.Callback, error) {
	verbose, err := verbosity(opts.Verbose)
	if err != nil {
		return nil, err
	}
	cbs := opts.Callbacks
	if verbose > 0 {
		out := opts.Output
		if out == nil {
			out = os.Stdout
		}
		cbs = append([]callbacks.Callback{callbacks.NewProgbar(out, verbose)}, cbs...)
	}
	return cbs, nil
}

// evaluateBatches evaluates the batches of b.
func (m *Model) evaluateBatches(ctx context.Context, b Batches, y ArraySet, opts EvaluateOptions) (_ callbacks.Logs, retErr error) {
	switch {
	case y != nil:
		return nil, errors.New("Evaluate got y beside keras.Batches: the targets come in the batches (Batch.Y); give y nil")
	case opts.SampleWeight != nil:
		return nil, errors.New("EvaluateOptions.SampleWeight does not go with keras.Batches: give the weights in the batches (Batch.SampleWeight)")
	case opts.BatchSize != 0:
		return nil, errors.New("EvaluateOptions.BatchSize does not go with keras.Batches: the Dataset or generator makes the batches; leave it 0")
	}
	cbs, err := evaluateCallbacks(opts)
	if err != nil {
		return nil, err
	}
	src, bind, f, err := m.readBatches(ctx, b, "Evaluate", true)
	if err != nil {
		return nil, err
	}
	defer src.closeInto(&retErr)
	defer f.close()
	return m.newRun(bind, src.c, cbs).evaluate(ctx, f, src.sample)
}

// Predict returns the model's output for x, like Keras's model.predict.
// For a model with several outputs, use PredictOutputs.
func (m *Model) Predict(ctx context.Context, x ArraySet, opts PredictOptions) (Array, error) {
	if m.Built() && len(m.outputs) > 1 {
		return Array{}, fmt.Errorf("model %q has %d outputs %v: use PredictOutputs, which returns one Array per output", m.Name, len(m.outputs), m.OutputNames())
	}
	outs, err := m.PredictOutputs(ctx, x, opts)
	if err != nil {
		return Array{}, err
	}
	return outs[0], nil
}

// PredictOutputs returns one Array per output of the model, in the
// model's order (OutputNames), like Keras's model.predict on a model with
// several outputs.
func (m *Model) PredictOutputs(ctx context.Context, x ArraySet, opts PredictOptions) ([]Array, error) {
	if err := checkCallbacks(opts.Callbacks); err != nil {
		return nil, fmt.Errorf("PredictOptions.Callbacks: %w", err)
	}
	batch, err := batchSize(opts.BatchSize)
	if err != nil {
		return nil, err
	}
	if b, ok := x.(Batches); ok {
		if opts.BatchSize != 0 {
			return nil, errors.New("PredictOptions.BatchSize does not go with keras.Batches: the Dataset or generator makes the batches; leave it 0")
		}
		return m.predictBatches(ctx, b, opts)
	}
	d, c, bind, err := m.prepareData(x, nil, "Predict", inputcheck.Checked(ctx))
	if err != nil {
		return nil, err
	}
	return m.newRun(bind, c, opts.Callbacks).predictArrays(ctx, d, batch)
}

// predictBatches predicts the inputs of b's batches. In a data-parallel
// job every process predicts every batch.
func (m *Model) predictBatches(ctx context.Context, b Batches, opts PredictOptions) (_ []Array, retErr error) {
	src, bind, f, err := m.readBatches(ctx, b, "Predict", false)
	if err != nil {
		return nil, err
	}
	defer src.closeInto(&retErr)
	defer f.close()
	return m.newRun(bind, src.c, opts.Callbacks).predict(ctx, f, -1)
}

// CheckInputs reports whether Predict would take x, without running the
// model: one array per input, the shapes and dtypes the inputs take, and
// each layer's checks of the data it reads straight from an input
// (Embedding's token ids in range). The error names the input and what it
// takes. A server checks each request with it before batching requests
// together (package serving).
func (m *Model) CheckInputs(x ArraySet) error {
	_, _, err := m.resolveData(x, nil, "Predict", false)
	return err
}

// checkInputData lets each layer that reads model input in straight from
// it check the data (Embedding's token ids), so that bad data is an error
// naming the layer before any step runs.
func (m *Model) checkInputData(in *layers.KerasTensor, a Array, label string) error {
	for _, n := range m.nodes {
		checker, ok := layers.InputDataCheckerOf(n)
		if !ok || !slices.Contains(n.Inputs(), in) {
			continue
		}
		if err := checker.CheckInputData(a.Data, a.Ints, backend.Shape(a.Shape[1:]).Size()); err != nil {
			return fmt.Errorf("layer %s: %s: %w", layers.Describe(n.Layer()), label, err)
		}
	}
	return nil
}

// expandTargetRank gives targets of shape (samples,) the trailing axis
// of an output of shape (batch, 1), as Keras's losses do
// (squeeze_or_expand_to_same_rank): binary labels for a sigmoid unit.
func expandTargetRank(a Array, out backend.Shape) Array {
	if len(a.Shape)+1 == len(out) && out[len(out)-1] == 1 {
		a.Shape = append(append([]int(nil), a.Shape...), 1)
	}
	return a
}

// adjustRank is Keras's Functional._adjust_input_rank: data with one
// axis less than the input, whose last dimension is 1, gains it (texts
// of shape (batch,) for an input of shape (1,)); data with one trailing
// axis of 1 more loses it. The values stay as they are.
func adjustRank(a Array, want backend.Shape) Array {
	switch {
	case len(a.Shape)+1 == len(want) && want[len(want)-1] == 1:
		a.Shape = append(append([]int(nil), a.Shape...), 1)
	case len(a.Shape) == len(want)+1 && len(want) > 0 && a.Shape[len(a.Shape)-1] == 1:
		a.Shape = append([]int(nil), a.Shape[:len(a.Shape)-1]...)
	}
	return a
}

// asInputDType returns a, converted to what input in takes: integers for
// an int input (layers.IntInput; float data must hold whole numbers),
// floats otherwise (integer data must be exact in float32).
func asInputDType(a Array, in *layers.KerasTensor, label string) (Array, error) {
	il, _ := in.Layer().(*layers.InputLayer)
	if il != nil && il.DType == backend.String {
		if a.Strings == nil {
			return Array{}, fmt.Errorf("%s feeds the string input %q but holds numbers: give the text as strings (keras.NewStringArray)", label, il.Common().Name)
		}
		return a, nil
	}
	if a.Strings != nil {
		return Array{}, fmt.Errorf("%s holds strings, but the model input %q takes numbers: map them to numbers in the model with a StringLookup or TextVectorization layer on a layers.StringInput", label, in.Layer().Common().Name)
	}
	if il == nil || il.DType == backend.Float32 {
		return asFloats(a, label)
	}
	if a.Ints != nil {
		return a, nil
	}
	ints := make([]int32, len(a.Data))
	for i, v := range a.Data {
		if v != float32(math.Trunc(float64(v))) || v < math.MinInt32 || v > math.MaxInt32 {
			return Array{}, fmt.Errorf("%s feeds the int input %q but value %d is %v, not an integer", label, il.Common().Name, i, v)
		}
		ints[i] = int32(v)
	}
	return Array{Shape: a.Shape, Ints: ints}, nil
}

// asFloats returns a with float data, converting integer data (which
// float32 holds exactly below 2^24).
func asFloats(a Array, label string) (Array, error) {
	if a.Strings != nil {
		return Array{}, fmt.Errorf("%s holds strings: give numbers (map string labels to ids first, e.g. with a StringLookup layer)", label)
	}
	if a.Ints == nil {
		return a, nil
	}
	data := make([]float32, len(a.Ints))
	for i, v := range a.Ints {
		if v > 1<<24 || v < -(1<<24) {
			return Array{}, fmt.Errorf("%s holds the integer %d (value %d), which float32 cannot hold exactly: feed it to an input made with layers.IntInput", label, v, i)
		}
		data[i] = float32(v)
	}
	return Array{Shape: a.Shape, Data: data}, nil
}
