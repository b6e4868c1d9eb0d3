package keras

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/internal/settings"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/distribution"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// run is one call of Fit, Evaluate or Predict: the engine it runs on,
// the compiled configuration (nil for a prediction without Compile), its
// callbacks, and the one batch loop all three share (runBatches).
type run struct {
	m    *Model
	bind *binding
	c    *compiled
	cbs  []callbacks.Callback

	// panicked is the first callback panic, as an error; the callback
	// that panicked is not called again, and the run stops.
	panicked error
	broken   map[int]bool // the callbacks that panicked
}

// checkCallbacks refuses a nil callback (a typed nil too): calling it
// would panic inside the loop.
func checkCallbacks(cbs []callbacks.Callback) error {
	for i, cb := range cbs {
		if settings.IsNil(cb) {
			return fmt.Errorf("callback %d is a nil %T: give a callback made by its constructor (callbacks.NewEarlyStopping, ...), or leave it out", i, cb)
		}
	}
	return nil
}

// newRun starts a run with the callbacks cbs (checked by
// checkCallbacks), each told the model.
func (m *Model) newRun(bind *binding, c *compiled, cbs []callbacks.Callback) *run {
	r := &run{m: m, bind: bind, c: c, cbs: cbs}
	r.each("SetModel", func(cb callbacks.Callback) { cb.SetModel(m) })
	return r
}

// failure returns the first callback panic, else the first error a
// callback reports (callbacks.Failer).
func (r *run) failure() error {
	if r.panicked != nil {
		return r.panicked
	}
	for _, cb := range r.cbs {
		if f, ok := cb.(callbacks.Failer); ok && f.Err() != nil {
			return f.Err()
		}
	}
	return nil
}

// each calls f (the callback method named method) on every callback. A
// callback that panics is an error of the run naming it (the run stops
// before its next step, and Fit after the epoch, and returns it), not a crash of the program: the
// callback is not called again.
func (r *run) each(method string, f func(callbacks.Callback)) {
	for i, cb := range r.cbs {
		if r.broken[i] {
			continue
		}
		r.call(i, cb, method, f)
	}
}

func (r *run) call(i int, cb callbacks.Callback, method string, f func(callbacks.Callback)) {
	defer func() {
		if p := recover(); p != nil {
			if r.broken == nil {
				r.broken = map[int]bool{}
			}
			r.broken[i] = true
			if r.panicked == nil {
				r.panicked = fmt.Errorf("callback %d (%T) panicked in %s: %v", i, cb, method, p)
			}
		}
	}()
	f(cb)
}

// batchOut is what a step returned for one batch: its size, the
// snapshot of the state it ran on, and the output tensors, which the
// handler owns (and must release).
type batchOut struct {
	step, size int
	state      *stateSet
	out        []backend.Tensor
	// donated is set when the step gave state's replaced tensors to the
	// engine: it holds the binding until it publishes (publishDonated).
	donated bool
}

// runBatches runs the step of kind over the batches f gives, from step
// skip on (the steps a resumed epoch had done), calling begin before and
// handle after each step. It is the only batch loop: Fit's epochs,
// validation, Evaluate and Predict all go through it. It returns the
// number of steps run (skip included).
//
// A training step runs on the binding's newest state and publishes the
// next; an evaluation or a prediction runs on one snapshot for the whole
// call, so that it sees the weights of one step even while another
// goroutine trains the model.
func (r *run) runBatches(ctx context.Context, kind exeKind, f feed, skip int, begin func(step int), handle func(batchOut) error) (int, error) {
	m, bind := r.m, r.bind
	perStep := kind == trainStep
	var s *stateSet
	// A built-in training step donates the tensors it replaces to the
	// engine (donating), which writes the new weights and optimizer slots
	// into them, as PyTorch updates in place.
	donate, donating, held := perStep && r.donates(), false, false
	acquire := func() error {
		// Variables another model trained or SetWeights assigned since
		// the last step are uploaded first, with those of the outside
		// models the step calls.
		if err := bind.adopt(r.c.outside(kind)); err != nil {
			return err
		}
		if err := bind.refresh(); err != nil {
			return err
		}
		if perStep && !held { // once, before the first step
			if err := r.holdTrained(); err != nil {
				return err
			}
			held = true
		}
		var err error
		s, donating, err = bind.acquireStep(donate)
		return err
	}
	if !perStep {
		if err := acquire(); err != nil {
			return skip, err
		}
		defer func() { bind.release(s) }()
	}
	steps := f.steps()
	step := skip
	for ; steps < 0 || step < steps; step++ {
		if err := ctx.Err(); err != nil {
			return step, fmt.Errorf("stopped at batch %d: %w", step+1, err)
		}
		if r.panicked != nil {
			return step, r.panicked
		}
		b, ok, err := f.next(ctx, step)
		if err != nil {
			return step, err
		}
		if !ok {
			break
		}
		begin(step)
		if perStep {
			if err := acquire(); err != nil {
				return step, err
			}
		}
		out, err := r.runStep(kind, b, s, donating)
		if perStep {
			bind.release(s)
		}
		if err != nil && donating {
			bind.endDonation(s)
		}
		if dp := m.dist(); err != nil && dp != nil && dp.Failure() != nil {
			err = dp.Failure() // what the job lost, not the engine's wrapping of it
		}
		if err != nil {
			return step, fmt.Errorf("%s step at batch %d: %w", kind, step+1, err)
		}
		err = handle(batchOut{step: step, size: b.samples(), state: s, out: out, donated: donating})
		if donating {
			bind.endDonation(s) // if handle did not publish
		}
		if err != nil {
			return step, err
		}
		if kind == trainStep && m.stopRequested.Load() {
			return step + 1, nil
		}
	}
	return step, nil
}

// runStep runs the step of kind on batch b with the state s: it uploads
// the batch (and for training the step's settings), runs a compiled step
// from the binding's cache and returns its outputs.
func (r *run) runStep(kind exeKind, b hostData, s *stateSet, donating bool) ([]backend.Tensor, error) {
	bind, c := r.bind, r.c
	var err error
	if b.x, err = r.m.hostFeeds(b.x); err != nil {
		return nil, err
	}
	key := exeKey{kind: kind, batch: b.x[0].Shape[0], weighted: b.sw != nil && kind != predictStep}
	if c != nil && ((kind == trainStep && c.opts.TrainStep != nil) || (kind == evalStep && c.opts.TestStep != nil)) || r.m.hasUnknownDims() {
		key.shapes = b.shapes()
	}
	exe, err := bind.exes.get(key, func() (backend.Executable, error) { return r.m.compileStep(bind, c, key, b) })
	if err != nil {
		return nil, fmt.Errorf("compiling the %s step for batch shape %v: %w", kind, backend.Shape(b.x[0].Shape), err)
	}
	defer bind.exes.put(key, exe)
	// The model's variables, then those of the models outside it that a
	// custom step calls (a teacher, a target network), which the binding
	// holds too (adopt).
	in := append(make([]backend.Tensor, 0, len(s.params)+len(s.optState)+1+len(b.x)+len(b.y)), s.params[:len(r.m.weights)]...)
	if kind != predictStep {
		for _, w := range c.outside(kind) {
			i, ok := s.vars.index[w]
			if !ok || s.params[i] == nil {
				return nil, fmt.Errorf("the %s step calls a model outside %q whose variable %q is not on its engine", kind, r.m.Name, w.Name)
			}
			in = append(in, s.params[i])
		}
	}
	var owned []backend.Tensor // uploaded for this step only
	defer func() { bind.be.Release(owned...) }()
	add := func(t backend.Tensor, err error) error {
		if err != nil {
			return err
		}
		in, owned = append(in, t), append(owned, t)
		return nil
	}
	if kind == trainStep {
		exe.SetStep(s.iterations + 1) // its random draws depend on the step alone
		in = append(in, s.optState...)
		if err := add(bind.be.FromFloat32(c.hyperValues(s.iterations), c.hyperShape())); err != nil {
			return nil, err
		}
	}
	arrays := append(append([]Array(nil), b.x...), b.y...)
	if kind != predictStep {
		arrays = append(arrays, b.sw...)
	}
	for _, a := range arrays {
		if err := add(uploadArray(bind.be, a)); err != nil {
			return nil, err
		}
	}
	if donating {
		if inner := exe.(*cachedExe).Executable; backend.Donates(inner) {
			return inner.(backend.Donor).RunDonating(in, r.donated(len(in)))
		}
		bind.noDonor.Store(true) // the engine's steps cannot: stop asking
		bind.endDonation(s)
	}
	return exe.Run(in)
}

// holdTrained makes the binding the holder of the variables the training
// step updates, once uploaded, before the first step (holdForTraining).
func (r *run) holdTrained() error {
	bind := r.bind
	bind.mu.Lock()
	vars := bind.current.vars
	bind.mu.Unlock()
	idx := make([]int, len(r.c.trainPlan.updated))
	for k, i := range r.c.trainPlan.updated {
		idx[k] = r.bindingIndex(vars, i)
	}
	return bind.holdForTraining(idx)
}

// bindingIndex returns the binding's index in vars of the training
// step's variable i: the model's weights come first in both, and an
// outside model's variable is where the binding adopted it.
func (r *run) bindingIndex(vars *varTable, i int) int {
	if nW := len(r.m.weights); i >= nW {
		return vars.index[r.c.trainPlan.outside[i-nW]]
	}
	return i
}

// donates reports whether the run's training steps donate the tensors
// they replace (backend.Donor): the built-in step, whose logged loss is
// the one it differentiates (so the engine's finite-loss rule is Fit's
// NaN rule), outside a data-parallel job (whose logs are averaged over
// the processes), on an engine whose steps can.
func (r *run) donates() bool {
	c := r.c
	return c != nil && c.opts.TrainStep == nil && r.m.dist() == nil && !r.bind.noDonor.Load()
}

// donated returns the training step's donation flags for its n inputs:
// the model's weights the step updates, and the optimizers' state, which
// the step's outputs replace.
func (r *run) donated(n int) []bool {
	c := r.c
	flags := make([]bool, n)
	nW := len(r.m.weights)
	for _, i := range c.trainPlan.updated {
		if i < nW {
			flags[i] = true
		}
	}
	first := nW + len(c.trainPlan.outside)
	for k := range c.optSpecs {
		flags[first+k] = true
	}
	return flags
}

// uploadArray puts a batch's array on the engine: integers (token ids) as
// int32, numbers as float32.
func uploadArray(be backend.Backend, a Array) (backend.Tensor, error) {
	if a.Ints != nil {
		return be.FromInt32(a.Ints, backend.Shape(a.Shape))
	}
	return be.FromFloat32(a.Data, backend.Shape(a.Shape))
}

// stats reads a step's packed [loss, metric sums...] vector in one copy.
func (r *run) stats(t backend.Tensor) ([]float64, error) {
	v, err := r.bind.be.ToFloat64(t)
	r.bind.be.Release(t)
	return v, err
}

// means accumulates a step's statistics over an epoch: running totals of
// the statistics vector, and the samples seen, from which logs makes
// Keras's running values.
type means struct {
	stats   []stat
	totals  []float64
	samples int
}

func newMeans(layout []stat) *means {
	size := 0
	if len(layout) > 0 {
		last := layout[len(layout)-1]
		size = last.offset + last.size
	}
	return &means{stats: layout, totals: make([]float64, size)}
}

// resume counts n earlier samples whose running logs were logs. An
// accumulator's totals cannot be rebuilt from its value: it starts over.
func (a *means) resume(logs callbacks.Logs, n int) {
	for _, s := range a.stats {
		if v, ok := logs.Get(s.name); ok && s.acc == nil {
			a.totals[s.offset] += v * float64(n)
			if s.weighted { // the samples' weights are not logged: n is the unmasked count
				a.totals[s.offset+1] += float64(n)
			}
		}
	}
	a.samples += n
}

func (a *means) add(stats []float64, n int) {
	for _, s := range a.stats {
		for i := s.offset; i < s.offset+s.size; i++ {
			if s.batchMean {
				a.totals[i] += stats[i] * float64(n)
			} else {
				a.totals[i] += stats[i]
			}
		}
	}
	a.samples += n
}

func (a *means) logs() callbacks.Logs {
	logs := make(callbacks.Logs, len(a.stats))
	for i, s := range a.stats {
		v := 0.0
		switch {
		case s.acc != nil:
			v = s.acc.Result(a.totals[s.offset : s.offset+s.size])
		case s.weighted:
			if w := a.totals[s.offset+1]; w > 0 { // Keras's divide_no_nan
				v = a.totals[s.offset] / w
			}
		case a.samples > 0:
			v = a.totals[s.offset] / float64(a.samples)
		}
		logs[i] = callbacks.Log{Name: s.name, Value: v}
	}
	return logs
}

// trainEpoch trains one epoch on the batches of f, from batch from.batch
// on (0, or where a resumed run stopped), its running logs starting from
// from.logs. It returns the epoch's logs and the number of batches it
// ran (skipped ones included; a generator's epoch may end early).
func (r *run) trainEpoch(ctx context.Context, f feed, epoch int, from resumePoint) (callbacks.Logs, int, error) {
	c := r.c
	acc := newMeans(c.trainLayout())
	world := 1
	if dp := r.m.dist(); dp != nil {
		world = dp.WorldSize()
	}
	acc.resume(from.logs, from.batch*f.samplesPerBatch()*world)
	var logs callbacks.Logs
	if from.batch > 0 {
		logs = acc.logs()
	}
	begin := func(step int) {
		r.each("OnTrainBatchBegin", func(cb callbacks.Callback) { cb.OnTrainBatchBegin(step) })
	}
	steps, err := r.runBatches(ctx, trainStep, f, from.batch, begin, func(b batchOut) error {
		stats, err := r.stats(b.out[0])
		rest := b.out[1:]
		if err != nil {
			c.be.Release(rest...)
			return err
		}
		if loss, bad := nanLoss(acc.stats, stats); bad {
			// Keep the weights from before this batch (an engine given
			// them wrote into none, its loss not being finite); callbacks
			// see the NaN and may stop training (TerminateOnNaN), else it
			// is an error.
			c.be.Release(rest...)
			r.bind.endDonation(b.state)
			r.each("OnTrainBatchEnd", func(cb callbacks.Callback) { cb.OnTrainBatchEnd(b.step, callbacks.Logs{{Name: "loss", Value: loss}}) })
			if r.m.stopRequested.Load() {
				return nil
			}
			return fmt.Errorf("%w (%v) at epoch %d, batch %d: training stopped (TerminateOnNaN) and the weights are those before this batch; lower the learning rate or check the data for NaN or huge values",
				ErrNaNLoss, loss, epoch+1, b.step+1)
		}
		// The step's new state becomes the binding's newest: the updated
		// variables (frozen ones keep their tensors; an outside model's
		// that the step changed are among them), which the binding now
		// holds, and the optimizers' state.
		updated := c.trainPlan.updated
		nU := len(updated)
		ch := stateChange{params: map[int]backend.Tensor{}, optState: rest[nU : nU+len(c.optSpecs)], steps: 1}
		hold := make([]int, nU)
		for k, i := range updated {
			i = r.bindingIndex(b.state.vars, i)
			ch.params[i], hold[k] = rest[k], i
		}
		publish := r.bind.publish
		if b.donated {
			publish = func(ch stateChange, hold []int) error { return r.bind.publishDonated(b.state, ch, hold) }
		}
		if err := publish(ch, hold); err != nil {
			return err
		}
		acc.add(stats, b.size*world) // stats are the job's (averageAcrossProcesses)
		logs = acc.logs()
		r.each("OnTrainBatchEnd", func(cb callbacks.Callback) { cb.OnTrainBatchEnd(b.step, logs) })
		return nil
	})
	if err != nil {
		return nil, steps, fmt.Errorf("training epoch %d: %w", epoch+1, err)
	}
	return logs, steps, nil
}

// evaluate evaluates the batches of f; layoutBatch is a batch of the
// data, to learn a custom test step's logs. In a data-parallel job each
// process evaluates its share and the totals are summed at the end, so
// the final logs are those of all the data (the per-batch logs callbacks
// see are the process's own).
func (r *run) evaluate(ctx context.Context, f feed, layoutBatch hostData) (callbacks.Logs, error) {
	layout, err := r.m.testLayout(r.c, layoutBatch)
	if err != nil {
		return nil, err
	}
	acc := newMeans(layout)
	r.each("OnTestBegin", func(cb callbacks.Callback) { cb.OnTestBegin(callbacks.Params{Steps: f.steps()}) })
	begin := func(step int) { r.each("OnTestBatchBegin", func(cb callbacks.Callback) { cb.OnTestBatchBegin(step) }) }
	_, err = r.runBatches(ctx, evalStep, f, 0, begin, func(b batchOut) error {
		stats, err := r.stats(b.out[0])
		if err != nil {
			return err
		}
		acc.add(stats, b.size)
		logs := acc.logs()
		r.each("OnTestBatchEnd", func(cb callbacks.Callback) { cb.OnTestBatchEnd(b.step, logs) })
		return nil
	})
	if err != nil {
		return nil, err
	}
	if dp := r.m.dist(); dp != nil {
		if err := acc.reduce(dp); err != nil {
			return nil, fmt.Errorf("summing the evaluation over every process: %w", err)
		}
	}
	logs := acc.logs()
	r.each("OnTestEnd", func(cb callbacks.Callback) { cb.OnTestEnd(logs) })
	if r.panicked != nil {
		return nil, r.panicked
	}
	return logs, nil
}

// evaluateArrays evaluates d in batches of batch; in a data-parallel job
// each process evaluates its block of rows.
func (r *run) evaluateArrays(ctx context.Context, d hostData, batch int) (callbacks.Logs, error) {
	layoutBatch := d.rows(0, min(batch, d.samples()))
	if dp := r.m.dist(); dp != nil {
		d = d.rows(distribution.Block(d.samples(), dp.Rank(), dp.WorldSize()))
	}
	return r.evaluate(ctx, newArrayFeed(d, wholeSpan(d.samples(), batch)), layoutBatch)
}

// predict predicts the batches of f, about rows samples in all (-1:
// unknown), and returns one Array per output.
func (r *run) predict(ctx context.Context, f feed, rows int) ([]Array, error) {
	be := r.bind.be
	res := make([]Array, len(r.m.outputs))
	for i, o := range r.m.outputs {
		shape := o.Shape()
		shape[0] = 0
		res[i] = Array{Shape: shape, Data: make([]float32, 0, max(rows*shape[1:].Size(), 0))}
	}
	// An output with a dimension of any length besides the batch takes
	// its lengths from the data.
	resolve := func(i int, t backend.Tensor) error {
		for k, d := range res[i].Shape[1:] {
			got := t.Shape()[k+1]
			if d < 0 && res[i].Shape[0] == 0 {
				res[i].Shape[k+1] = got
			} else if got != res[i].Shape[k+1] {
				return fmt.Errorf("output %q has shape %v for this batch but %v for the batches before: Predict returns one array per output, so give batches whose outputs have one shape", r.m.OutputNames()[i], t.Shape(), backend.Shape(res[i].Shape).WithLeading("samples"))
			}
		}
		res[i].Shape[0] += t.Shape()[0]
		return nil
	}
	r.each("OnPredictBegin", func(cb callbacks.Callback) { cb.OnPredictBegin(callbacks.Params{Steps: f.steps()}) })
	begin := func(step int) {
		r.each("OnPredictBatchBegin", func(cb callbacks.Callback) { cb.OnPredictBatchBegin(step) })
	}
	_, err := r.runBatches(ctx, predictStep, f, 0, begin, func(b batchOut) error {
		defer be.Release(b.out...)
		for i, t := range b.out {
			v, err := be.ToFloat32(t)
			if err != nil {
				return err
			}
			if err := resolve(i, t); err != nil {
				return err
			}
			res[i].Data = append(res[i].Data, v...)
		}
		r.each("OnPredictBatchEnd", func(cb callbacks.Callback) { cb.OnPredictBatchEnd(b.step) })
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.each("OnPredictEnd", func(cb callbacks.Callback) { cb.OnPredictEnd() })
	if r.panicked != nil {
		return nil, r.panicked
	}
	return res, nil
}

// predictArrays predicts d in batches of batch; in a data-parallel job
// each process predicts its block of rows and every process returns all
// of them.
func (r *run) predictArrays(ctx context.Context, d hostData, batch int) ([]Array, error) {
	total := d.samples()
	dp := r.m.dist()
	if dp != nil {
		d = d.rows(distribution.Block(total, dp.Rank(), dp.WorldSize()))
	}
	res, err := r.predict(ctx, newArrayFeed(d, wholeSpan(d.samples(), batch)), d.samples())
	if err != nil || dp == nil {
		return res, err
	}
	return gatherRows(dp, res, total)
}

// learningRate is the learning rate fed to the training step after
// iterations steps: the schedule's rate at that step, or the optimizer's
// field, read every step so that a change takes effect at once.
func (c *compiled) learningRate(iterations int64) float64 {
	return c.rateOf(c.opt, iterations)
}

// rateOf returns the learning rate of opt, one of the optimizers of the
// step, after iterations steps.
func (c *compiled) rateOf(opt optimizers.Optimizer, iterations int64) float64 {
	c.lrMu.Lock()
	defer c.lrMu.Unlock()
	return optimizers.RateAt(opt, iterations)
}

// nanLoss reports whether a step's loss (the log "loss", or any scalar
// log of a custom step without one) is NaN or infinite, and that value.
func nanLoss(layout []stat, st []float64) (float64, bool) {
	for _, s := range layout {
		if !s.batchMean {
			continue
		}
		if v := st[s.offset]; math.IsNaN(v) || math.IsInf(v, 0) {
			return v, true
		}
		if s.name == "loss" {
			break
		}
	}
	return 0, false
}

// finalizeEMA replaces the trained weights by their moving averages when
// the optimizer keeps them (UseEMA), as Keras's fit ends with
// optimizer.finalize_variable_values.
func (m *Model) finalizeEMA(c *compiled) error {
	if !c.onlyCompiledOptimizer() {
		return nil // a custom step's own optimizers keep their averages
	}
	ema := optimizers.EMAStates(c.opt, len(c.trainable))
	if len(ema) == 0 {
		return nil
	}
	s, err := c.bind.acquire()
	if err != nil {
		return err
	}
	ch := stateChange{params: map[int]backend.Tensor{}}
	var hold []int
	for k, slot := range ema {
		v, err := c.be.ToFloat32(s.optState[slot])
		if err == nil {
			i := c.trainable[k]
			ch.params[i], err = c.be.FromFloat32(v, m.weights[i].Shape)
			hold = append(hold, i)
		}
		if err != nil {
			c.bind.release(s)
			c.be.Release(values(ch.params)...)
			return err
		}
	}
	c.bind.release(s)
	return c.bind.publish(ch, hold)
}

// SwapEMAWeights exchanges the trained weights with their moving
// averages, which the compiled optimizer keeps with UseEMA, as Keras's
// SwapEMAWeights callback does (so that evaluating between two swaps uses
// the averages, and training resumes from the weights). It fails without
// UseEMA, or before the optimizer has taken a step.
func (m *Model) SwapEMAWeights() error { return m.exchangeEMA(true) }

// CopyWeightsToEMA sets the moving averages to the current weights, as
// Keras's SwapEMAWeights does after the last epoch when the averages are
// swapped in, so that the end of Fit, which replaces the weights by the
// averages, keeps them.
func (m *Model) CopyWeightsToEMA() error { return m.exchangeEMA(false) }

// exchangeEMA swaps the weights and their averages (swap), or copies the
// weights to the averages.
func (m *Model) exchangeEMA(swap bool) error {
	c, err := m.compiledOrErr("it has no optimizer")
	if err != nil {
		return err
	}
	ema := optimizers.EMAStates(c.opt, len(c.trainable))
	if len(ema) == 0 || !c.onlyCompiledOptimizer() {
		return fmt.Errorf("model %q: SwapEMAWeights needs the compiled optimizer to keep moving averages of the weights: set Options.UseEMA on it (Keras's use_ema=True)", m.Name)
	}
	if c.bind == nil {
		return fmt.Errorf("model %q has not trained yet, so its optimizer keeps no moving averages to swap", m.Name)
	}
	s, err := c.bind.acquire()
	if err != nil {
		return err
	}
	ch := stateChange{params: map[int]backend.Tensor{}, optState: make([]backend.Tensor, len(s.optState))}
	var hold []int
	fail := func(err error) error {
		c.bind.release(s)
		c.be.Release(values(ch.params)...)
		c.be.Release(ch.optState...)
		return err
	}
	copyOf := func(t backend.Tensor, shape backend.Shape) (backend.Tensor, error) {
		v, err := c.be.ToFloat32(t)
		if err != nil {
			return nil, err
		}
		return c.be.FromFloat32(v, shape)
	}
	isEMA := map[int]int{}
	for k, slot := range ema {
		isEMA[slot] = k
	}
	for j, t := range s.optState {
		var err error
		if k, ok := isEMA[j]; ok {
			i := c.trainable[k]
			ch.optState[j], err = copyOf(s.params[i], m.weights[i].Shape) // the weight, as the average
			if err == nil && swap {
				ch.params[i], err = copyOf(t, m.weights[i].Shape) // the average, as the weight
				hold = append(hold, i)
			}
		} else {
			ch.optState[j], err = copyOf(t, t.Shape())
		}
		if err != nil {
			return fail(err)
		}
	}
	c.bind.release(s)
	return c.bind.publish(ch, hold)
}

// The model seen by callbacks (callbacks.Model).

// StopTraining makes Fit stop after the current batch, like setting
// Keras's model.stop_training.
func (m *Model) StopTraining() { m.stopRequested.Store(true) }

// IsChief reports whether this process writes checkpoints and prints
// progress: true unless the model is compiled for a data-parallel job
// (CompileOptions.Distribution) and this is not its rank 0.
func (m *Model) IsChief() bool { return m.chief() }

// resumePoint is where a Fit begins: FitOptions.InitialEpoch, or a
// callback's ResumeAt.
type resumePoint struct {
	epoch, batch int
	logs         callbacks.Logs // the epoch's running logs before batch
}

// ResumeAt makes the Fit that is starting begin at batch (from 0) of epoch
// (from 0), the epoch's earlier batches having produced the running logs
// logs; callbacks call it from OnTrainBegin to resume a run. A point before
// FitOptions.InitialEpoch is ignored.
func (m *Model) ResumeAt(epoch, batch int, logs callbacks.Logs) {
	if epoch > m.resume.epoch || (epoch == m.resume.epoch && batch > m.resume.batch) {
		m.resume = resumePoint{epoch: epoch, batch: batch, logs: logs}
	}
}

// errMultiRate is the error of reading or setting a MultiOptimizer's
// learning rate.
var errMultiRate = errors.New("optimizer multi_optimizer has no learning rate of its own (as in Keras, where reading or setting it raises): read or set each of its optimizers' LearningRate field")

// LearningRate returns the compiled optimizer's current learning rate
// (with a schedule, the rate of the next step).
func (m *Model) LearningRate() (float64, error) {
	c, err := m.compiledOrErr("it has no optimizer")
	if err != nil {
		return 0, err
	}
	if _, multi := optimizers.AsMulti(c.opt); multi {
		return 0, errMultiRate
	}
	if optimizers.LearningRate(c.opt) == nil && optimizers.Schedule(c.opt) == nil {
		return 0, fmt.Errorf("optimizer %s has no learning rate kerasgo knows how to read", c.opt.Name())
	}
	return c.learningRate(m.iterations(c)), nil
}

// iterations returns the number of training steps the compiled optimizer
// has taken (0 before the model is ready).
func (m *Model) iterations(c *compiled) int64 {
	m.mu.Lock()
	bind := c.bind
	m.mu.Unlock()
	if bind == nil {
		return 0
	}
	s, err := bind.acquire()
	if err != nil {
		return 0
	}
	defer bind.release(s)
	return s.iterations
}

// compiledOrErr returns the model's compiled configuration, or an error
// saying the model is not compiled and why that matters (why).
func (m *Model) compiledOrErr(why string) (*compiled, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.compiled == nil {
		return nil, fmt.Errorf("model %q is not compiled: %s; call Compile", m.Name, why)
	}
	return m.compiled, nil
}

// SetLearningRate changes the optimizer's learning rate from the next
// training step on, without recompiling.
func (m *Model) SetLearningRate(lr float64) error {
	if lr < 0 || math.IsNaN(lr) || math.IsInf(lr, 0) {
		return fmt.Errorf("SetLearningRate(%v): the learning rate must be a finite number >= 0", lr)
	}
	c, err := m.compiledOrErr("it has no optimizer")
	if err != nil {
		return err
	}
	if optimizers.Schedule(c.opt) != nil {
		return fmt.Errorf("optimizer %s follows a learning-rate schedule, so its learning rate cannot be set (as in Keras): compile with a fixed LearningRate to change it from a callback", c.opt.Name())
	}
	if _, multi := optimizers.AsMulti(c.opt); multi {
		return errMultiRate
	}
	p := optimizers.LearningRate(c.opt)
	if p == nil {
		return fmt.Errorf("optimizer %s has no learning rate kerasgo knows how to set", c.opt.Name())
	}
	c.lrMu.Lock()
	*p = lr
	c.lrMu.Unlock()
	return nil
}

// Iterations returns how many training steps the compiled optimizer has
// taken, Keras's optimizer.iterations (0 before the model is compiled
// and trained).
func (m *Model) Iterations() int64 {
	m.mu.Lock()
	c := m.compiled
	m.mu.Unlock()
	if c == nil {
		return 0
	}
	return m.iterations(c)
}
