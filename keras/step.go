package keras

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/metrics"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// StepFunc is a training or test step written in Go, Keras's overridden
// train_step and test_step (guide "Customizing what happens in fit()"):
// give it to Compile (CompileOptions.TrainStep, TestStep) and Fit,
// Evaluate, TrainOnBatch and TestOnBatch run it instead of the built-in
// step, with everything else they do (callbacks, History, validation,
// BackupAndRestore, data parallel).
//
// The function describes the step, it does not run it: kerasgo calls it
// when it compiles the step (once per batch shape, and once more at the
// start of training to learn which optimizers and variables it uses) with
// symbolic values, and the engine then runs the compiled step on every
// batch. So the function must do the same thing every time it is called,
// and it cannot look at the numbers (use the Step's ops, as a Keras step
// uses keras.ops). It returns the step's logs.
type StepFunc func(s *Step, data StepData) (StepLogs, error)

// StepData is one batch as a step sees it: the arrays given to Fit (or
// Evaluate, TrainOnBatch, TestOnBatch) in order, as symbolic values. Y
// and SampleWeights are empty when none were given.
type StepData struct {
	X, Y, SampleWeights []backend.Value
}

// StepLog is one named value a step reports: a scalar, which Fit shows as
// its running mean over the epoch's batches (weighted by the batch size,
// as Keras's loss tracker), or a compiled metric from ComputeMetrics.
type StepLog struct {
	Name  string
	Value backend.Value
	// acc is set for an accumulating metric (Value holds its totals);
	// weighted for a per-sample metric (Value holds the sum over the
	// batch of the samples' values and of their weights: sampleTotals).
	acc      metrics.Accumulator
	weighted bool
}

// StepLogs are a step's logs, in the order the progress bar shows them.
type StepLogs []StepLog

// Step is what a StepFunc works with: the ops of the step being built
// (it embeds backend.Builder: s.Add, s.Concat, s.RandomNormal, ...), the
// models it can call, the compiled loss and metrics, gradients, and
// optimizers. It lives only while the StepFunc runs.
//
// Errors are sticky, as the Builder's: a method that fails records the
// error, returns placeholder values, and the step fails with the first
// error when the StepFunc returns.
type Step struct {
	backend.Builder
	m        *Model
	c        *compiled
	kind     string // "train step" or "test step", for messages
	training bool
	// discover is true while the step is traced to learn which
	// optimizers it applies (no optimizer state exists yet).
	discover bool
	// vars are the step's variables by index: the model's weights, then
	// the variables of models outside it that the step calls or changes
	// (its plan's; while planning, added as they are met).
	vars     []*layers.Weight
	index    map[*layers.Weight]int
	owner    map[*layers.Weight]*Model        // an outside variable's model, for messages
	values   map[*layers.Weight]backend.Value // each variable's current value
	updated  map[*layers.Weight]bool          // changed by an optimizer or a layer
	assigned map[*layers.Weight]bool          // changed by a layer (moving statistics)
	state    []backend.Value                  // every optimizer's state, as inputs
	hyper    backend.Value                    // per optimizer: learning rate, iteration, flags
	newState [][]backend.Value                // per optimizer slot: its new state
	losses   []backend.Value                  // AddLoss terms not yet in a ComputeLoss
	// masks holds, in its Keras mask table, the mask each model output a
	// Call returned carries (Keras's _keras_mask), which ComputeLoss and
	// ComputeMetrics apply (nil until a Call returns a masked output).
	masks *layers.Context
	// averagedStats is the step's logs, packed and averaged over a
	// data-parallel job's processes together with the layers'
	// assignments (and the built-in step's gradients) in one collective
	// (averageTogether); nil outside a job.
	averagedStats backend.Value
	err           error
}

// Model returns the model whose step this is (Keras's self).
func (s *Step) Model() *Model { return s.m }

// Optimizer returns the optimizer given to Compile (Keras's
// self.optimizer), or nil in a Function over a model never compiled.
func (s *Step) Optimizer() optimizers.Optimizer {
	if s.c == nil {
		return nil
	}
	return s.c.opt
}

// compiledFor reports whether the model was compiled, which what needs;
// if not, the step fails saying so.
func (s *Step) compiledFor(what string) bool {
	if s.c == nil {
		s.fail("%s needs the model compiled (its loss, metrics and optimizer): call Compile first", what)
		return false
	}
	return true
}

// Training reports whether this is a training step.
func (s *Step) Training() bool { return s.training }

func (s *Step) fail(format string, args ...any) {
	// The first error is the cause: after an op failed, what a method
	// finds wrong (a placeholder's shape) follows from it.
	if s.err == nil && s.Err() == nil {
		s.err = fmt.Errorf("%s: "+format, append([]any{s.kind}, args...)...)
	}
}

// placeholders returns n scalar zeros, the results of a failed call.
func (s *Step) placeholders(n int) []backend.Value {
	out := make([]backend.Value, n)
	for i := range out {
		out[i] = s.Scalar(0)
	}
	return out
}

// Call runs model on xs in training or inference mode (Keras's
// model(x, training=...)) with the variables' current values in this
// step: after an optimizer was applied to some, their new values. The
// model is the step's model, a part of it (a GAN's generator inside the
// combined model), or a model outside it (a Distiller's teacher, a
// target network, an EMA copy): the step reads such a model's variables
// as they are when it runs, and changes them only as it changes its own
// model's (Apply, Assign, or a training-mode call whose layers assign).
// Layers' assignments (BatchNormalization's moving statistics in training
// mode) become the variables' new values in a train step (a test step
// changes no variable), and their AddLoss terms are added by the next
// ComputeLoss.
func (s *Step) Call(model *Model, training bool, xs ...backend.Value) []backend.Value {
	if model == nil {
		s.fail("Call got a nil model")
		return nil
	}
	if !model.Built() {
		s.fail("model %q is not built: give it an Input before calling it in a step", model.Name)
		return nil
	}
	n := len(model.outputs)
	if s.discover && s.c != nil {
		// A built Keras model has values: an outside model never compiled
		// gets them here, from the compile seed, as Compile gives them.
		model.initWeights(s.c.opts.Seed)
	}
	for _, w := range model.weights {
		if i, known := s.index[w]; known {
			if i >= len(s.m.weights) && s.owner[w] == nil {
				s.owner[w] = model
			}
			continue
		}
		if !s.discover {
			s.fail("model %q has the variable %q, which the step did not use when it was first traced: the step must call the same models every time it is called", model.Name, w.Name)
			return s.placeholders(n)
		}
		s.addOutside(w, model)
	}
	// A model whose first layers compute on the host (TextVectorization)
	// takes, in a step, what they gave: its feeds.
	if len(xs) != len(model.feeds) {
		s.fail("model %q takes %d inputs, the step gave it %d", model.Name, len(model.feeds), len(xs))
		return s.placeholders(n)
	}
	for i, x := range xs {
		if x == nil {
			s.fail("input %d given to model %q is nil", i, model.Name)
			return s.placeholders(n)
		}
		want := model.feeds[i].Shape()
		got := x.Shape()
		if !fitsShape(got, want) { // a dimension of any length (-1) takes every length
			s.fail("model %q expects input %d of shape %v, the step gave it %v", model.Name, i, want, got)
			return s.placeholders(n)
		}
	}
	ctx := layers.NewContext(s.Builder, training, s.values)
	outs := model.call(ctx, xs)
	for w, v := range ctx.Updates() {
		s.values[w], s.updated[w], s.assigned[w] = v, true, true
	}
	s.losses = append(s.losses, ctx.Losses()...)
	for _, o := range outs {
		if mk := ctx.KerasMask(o); mk != nil {
			if s.masks == nil {
				s.masks = layers.NewContext(s.Builder, s.training, nil)
			}
			s.masks.SetKerasMask(o, mk)
		}
	}
	return outs
}

// Mask returns the mask (batch, steps; 1 for data) that v, an output a
// Call returned, carries, or nil: Keras's keras.backend.get_keras_mask
// on y_pred in a train_step. ComputeLoss and ComputeMetrics apply it
// themselves; a loss a step computes on its own can use it. A value
// computed from an output (a slice, a sum) carries no mask, as in Keras.
func (s *Step) Mask(v backend.Value) backend.Value {
	if s.masks == nil {
		return nil
	}
	return s.masks.KerasMask(v)
}

// masksOf returns the mask each of preds carries (nil where none).
func (s *Step) masksOf(preds []backend.Value) []backend.Value {
	out := make([]backend.Value, len(preds))
	for i, p := range preds {
		out[i] = s.Mask(p)
	}
	return out
}

// ComputeLoss returns the compiled loss of predictions yPred for targets
// y (one per output; sampleWeights may be nil), plus the layers' AddLoss
// terms of the calls since the last ComputeLoss: Keras's
// self.compute_loss(y=y, y_pred=y_pred, sample_weight=...).
func (s *Step) ComputeLoss(y, yPred, sampleWeights []backend.Value) backend.Value {
	if !s.compiledFor("ComputeLoss") {
		return s.Scalar(0)
	}
	if !s.checkHeads("ComputeLoss", y, yPred, sampleWeights) {
		return s.Scalar(0)
	}
	if !hasLoss(s.c.heads) {
		s.fail("ComputeLoss needs the Loss given to Compile, and Compile got none: give CompileOptions.Loss, or compute the loss in the step")
		return s.Scalar(0)
	}
	return s.withModelLosses(headsLoss(s.Builder, s.c.heads, y, yPred, sampleWeights, s.masksOf(yPred)))
}

// withModelLosses adds to total (nil: none) the layers' AddLoss terms of
// the calls since the last loss, and the weights' penalties (at their
// current values); nil when there is nothing at all.
func (s *Step) withModelLosses(total backend.Value) backend.Value {
	penalties := s.m.weightPenalties(s.Builder, s.m.trainableWeights(), func(w *layers.Weight) backend.Value { return s.values[w] })
	for _, l := range append(s.losses, penalties...) {
		if total == nil {
			total = l
			continue
		}
		total = s.Add(total, l)
	}
	s.losses = nil
	return total
}

// ComputeMetrics returns the compiled metrics of yPred against y as logs
// (Keras's "for metric in self.metrics: metric.update_state(y, y_pred)"):
// Fit shows their values over the epoch as it does for the built-in step.
func (s *Step) ComputeMetrics(y, yPred, sampleWeights []backend.Value) StepLogs {
	if !s.compiledFor("ComputeMetrics") {
		return nil
	}
	if !s.checkHeads("ComputeMetrics", y, yPred, sampleWeights) {
		return nil
	}
	var out StepLogs
	for i, h := range s.c.heads {
		for _, mt := range h.metrics {
			name := mt.Name()
			if len(s.c.heads) > 1 {
				name = h.name + "_" + name
			}
			s.scope("metric " + name)
			switch v := mt.(type) {
			case metrics.Accumulator:
				out = append(out, StepLog{Name: name, Value: v.Totals(s.Builder, y[i], yPred[i]), acc: v})
			case metrics.Sample:
				out = append(out, StepLog{Name: name, Value: s.sampleTotals(name, v.Compute(s.Builder, y[i], yPred[i]), s.Mask(yPred[i])), weighted: true})
			}
			s.scope("")
		}
	}
	return out
}

// scope labels the ops built from now on (an op that fails names it),
// where the builder takes labels.
func (s *Step) scope(label string) {
	if sc, ok := s.Builder.(backend.Scoper); ok {
		sc.SetScope(label)
	}
}

// sampleTotals returns a per-sample metric's part of an epoch's mean, as
// Keras's Mean metrics keep it (reduce_to_samplewise_values): the sum
// over the batch of each sample's mean value, and the sum of the samples'
// weights. Without a mask each sample weighs 1, so that an accuracy over
// (batch, steps) targets is the mean over the steps, not their sum. With
// the output's mask (batch, steps) as the weight, as Keras's
// MeanMetricWrapper applies it, a sample's value is the mean of its
// masked values and its weight the fraction of its steps that hold data:
// the epoch's value is the mean over the data steps alone.
func (s *Step) sampleTotals(name string, v, mask backend.Value) backend.Value {
	n := 1
	if vs := v.Shape(); len(vs) > 0 {
		n = vs[0]
	}
	var weight backend.Value
	if mask != nil {
		v, mask = s.maskLike(name, v, mask)
		if v == nil {
			return s.Constant([]float64{0, 0}, backend.Shape{2})
		}
		weight = s.Sum(perSampleMean(s.Builder, mask))
		v = s.Mul(v, mask)
	} else {
		weight = s.Scalar(float64(n))
	}
	sum := s.Sum(perSampleMean(s.Builder, v))
	return pack(s.Builder, []backend.Value{sum, weight})
}

// maskLike returns a metric's values v and the output's mask at one rank,
// as Keras's squeeze_or_expand_to_same_rank and its reduction of values
// to the weight's rank do: values with more axes than the mask are
// averaged over the extra ones. A mask whose shape does not fit the
// values is the step's error, naming both shapes.
func (s *Step) maskLike(name string, v, mask backend.Value) (backend.Value, backend.Value) {
	vs, ms := v.Shape(), mask.Shape()
	if len(ms) == len(vs)+1 && ms[len(ms)-1] == 1 {
		mask = s.Reshape(mask, ms[:len(ms)-1])
		ms = mask.Shape()
	}
	if len(vs) > len(ms) {
		axes := make([]int, 0, len(vs)-len(ms))
		for a := len(ms); a < len(vs); a++ {
			axes = append(axes, a)
		}
		v = s.Mean(v, axes...)
		vs = v.Shape()
	}
	if !vs.Equal(ms) {
		s.fail("metric %s: its values have shape %v and the output's mask %v, which do not fit: a masked output needs a metric with one value per step (batch, steps)", name, vs, ms)
		return nil, nil
	}
	return v, mask
}

// perSampleMean reduces values to one per sample: the mean over every
// axis after the batch's.
func perSampleMean(b backend.Builder, v backend.Value) backend.Value {
	rank := len(v.Shape())
	if rank <= 1 {
		return v
	}
	axes := make([]int, rank-1)
	for i := range axes {
		axes[i] = i + 1
	}
	return b.Mean(v, axes...)
}

func (s *Step) checkHeads(what string, y, yPred, sw []backend.Value) bool {
	n := len(s.c.heads)
	switch {
	case len(y) != n:
		s.fail("%s got %d targets, the model has %d outputs: give one per output", what, len(y), n)
	case len(yPred) != n:
		s.fail("%s got %d predictions, the model has %d outputs: give one per output", what, len(yPred), n)
	case sw != nil && len(sw) != n:
		s.fail("%s got %d sample-weight vectors, the model has %d outputs: give one per output or nil", what, len(sw), n)
	default:
		for i, h := range s.c.heads {
			if err := h.resolveMetrics(append(backend.Shape{-1}, y[i].Shape()[1:]...), s.m.outputs[i].Shape()); err != nil {
				s.fail("%s: %v", what, err)
				return false
			}
		}
		return true
	}
	return false
}

// Gradients returns the gradient of loss, a scalar, with respect to each
// variable in vars at its current value (Keras's tape.gradient(loss,
// vars)); in a data-parallel job, averaged over the processes. The
// variables may be the step's model's or another model's; a variable loss
// does not depend on gets a zero gradient.
func (s *Step) Gradients(loss backend.Value, vars []*layers.Weight) []backend.Value {
	return s.gradients(loss, vars, true)
}

// gradients is Gradients; without average, a data-parallel job's
// gradients stay this process's own: the built-in step averages them
// with its logs and the layers' assignments in one collective
// (averageTogether).
func (s *Step) gradients(loss backend.Value, vars []*layers.Weight, average bool) []backend.Value {
	if loss == nil || len(loss.Shape()) != 0 {
		var shape backend.Shape
		if loss != nil {
			shape = loss.Shape()
		}
		s.fail("Gradients needs a scalar loss, got shape %v: reduce it first (s.Mean)", shape)
		return nil
	}
	wrt := make([]backend.Value, len(vars))
	for k, w := range vars {
		if !s.known(w, "Gradients") {
			return s.zeros(vars)
		}
		wrt[k] = s.values[w]
	}
	grads := s.Grad(loss, wrt)
	if dp := s.m.dist(); average && dp != nil && len(grads) > 0 && !s.discover {
		grads = averageValues(s.Builder, dp, grads)
	}
	return grads
}

// averageTogether averages, in a data-parallel job, this process's
// gradients grads (none for a custom step, whose Gradients averaged its
// own), the values layers assigned (moving statistics) and the step's
// logs over the processes in one collective: it returns the averaged
// gradients, takes the averaged assignments as the variables' values, and
// keeps the averaged logs (averagedStats) for the step's result. Outside
// a job, while planning, or once done, it returns grads.
func (s *Step) averageTogether(grads []backend.Value, logs StepLogs) []backend.Value {
	dp := s.m.dist()
	if dp == nil || s.discover || s.averagedStats != nil {
		return grads
	}
	var assignedWeights []*layers.Weight
	var assigned []backend.Value
	for _, w := range s.vars {
		if s.assigned[w] {
			assignedWeights = append(assignedWeights, w)
			assigned = append(assigned, s.values[w])
		}
	}
	grads, assigned, st := averageAcrossProcesses(s.Builder, dp, logs.layout(), grads, assigned, pack(s.Builder, logs.values()))
	for i, w := range assignedWeights {
		s.values[w] = assigned[i]
	}
	s.averagedStats = st
	return grads
}

// addOutside adds w, a variable of model (nil: not known) outside the
// step's own, to the step's variables while the step is planned. The
// planning trace computes nothing: a value of the variable's shape
// stands for it, and the compiled step takes its value as an input.
func (s *Step) addOutside(w *layers.Weight, model *Model) {
	s.index[w] = len(s.vars)
	s.vars = append(s.vars, w)
	s.values[w] = s.RandomUniform(w.Shape)
	if model != nil {
		s.owner[w] = model
	}
}

// known checks that w is one of the step's variables: its model's, or
// any other model's (added while the step is planned).
func (s *Step) known(w *layers.Weight, what string) bool {
	if w == nil {
		s.fail("%s got a nil variable", what)
		return false
	}
	if _, ok := s.index[w]; ok {
		return true
	}
	if s.discover {
		s.addOutside(w, nil)
		return true
	}
	s.fail("%s got the variable %q, which the step did not use when it was first traced: the step must use the same variables every time it is called", what, w.Name)
	return false
}

// whose names w's model for messages: " of model \"name\"", or "".
func (s *Step) whose(w *layers.Weight) string {
	if model := s.modelOf(w); model != nil {
		return fmt.Sprintf(" of model %q", model.Name)
	}
	return ""
}

// modelOf is w's model: the step's own, the outside model the step
// called that holds it, or nil for a variable of a model never called.
func (s *Step) modelOf(w *layers.Weight) *Model {
	if i, ok := s.index[w]; ok && i < len(s.m.weights) {
		return s.m
	}
	return s.owner[w]
}

// frozen reports whether w is left out of training: not among its
// model's trainable weights as Keras's trainable_weights reaches them
// (a frozen model or layer), or, for a variable of a model the step
// never called, its own flag off.
func (s *Step) frozen(w *layers.Weight) bool {
	model := s.modelOf(w)
	if model == nil {
		return !w.Trainable
	}
	return !slices.Contains(model.TrainableWeights(), w)
}

func (s *Step) zeros(vars []*layers.Weight) []backend.Value {
	out := make([]backend.Value, len(vars))
	for i, w := range vars {
		if w != nil {
			out[i] = s.Constant(make([]float64, w.Shape.Size()), w.Shape)
		} else {
			out[i] = s.Scalar(0)
		}
	}
	return out
}

// Apply applies opt to vars with their gradients grads (Keras's
// optimizer.apply(grads, vars)): their new values are what later calls
// in the step see, and the step's result. The variables are the step's
// model's or another model's (a critic trained beside the fitted model),
// and must be trainable. An optimizer is built for the
// variables of its first Apply (its state is made for them) and must be
// applied to the same variables, once per step; nil means the compiled
// optimizer. Several optimizers may be applied in one step (a GAN's
// discriminator and generator).
func (s *Step) Apply(opt optimizers.Optimizer, grads []backend.Value, vars []*layers.Weight) {
	if !s.training {
		s.fail("an optimizer was applied in a %s: only a training step changes variables", s.kind)
		return
	}
	if opt == nil {
		opt = s.c.opt
	}
	if len(grads) != len(vars) {
		s.fail("optimizer %s got %d gradients for %d variables: give one gradient per variable", opt.Name(), len(grads), len(vars))
		return
	}
	if multi, ok := optimizers.AsMulti(opt); ok {
		s.applyMulti(multi, grads, vars)
		return
	}
	idx := make([]int, len(vars))
	for k, w := range vars {
		if !s.known(w, "Apply") {
			return
		}
		if s.frozen(w) {
			s.fail("optimizer %s was applied to the variable %q%s, which is frozen (not trainable): an optimizer changes only trainable variables; unfreeze its layer or model (SetTrainable(true)), leave it out, or set it with Assign", opt.Name(), w.Name, s.whose(w))
			return
		}
		idx[k] = s.index[w]
		if grads[k] == nil || !grads[k].Shape().Equal(w.Shape) {
			s.fail("optimizer %s: the gradient for variable %q is missing or not of its shape %v", opt.Name(), w.Name, w.Shape)
			return
		}
	}
	k, err := s.c.slotFor(opt, idx, s.discover, s.vars)
	if err != nil {
		s.fail("%v", err)
		return
	}
	for len(s.newState) <= k {
		s.newState = append(s.newState, nil)
	}
	if s.newState[k] != nil {
		s.fail("optimizer %s applied twice in one step: apply it once, to all its variables", opt.Name())
		return
	}
	if s.discover {
		// Only which variables change matters while discovering.
		s.newState[k] = []backend.Value{}
		for _, w := range vars {
			s.updated[w] = true
		}
		return
	}
	sl := s.c.slots[k]
	params := make([]backend.Value, len(vars))
	for i, w := range vars {
		params[i] = s.values[w]
	}
	at := func(i int) backend.Value {
		return s.Reshape(s.Slice(s.hyper, []int{hyperparameters*k + i}, []int{1}), backend.Shape{})
	}
	hp := optimizers.Hyperparameters{LearningRate: at(0), Iteration: at(1), ApplyUpdate: at(2), OverwriteWithEMA: at(3)}
	newP, newS := optimizers.Apply(s.Builder, sl.rule, hp, params, grads, s.state[sl.offset:sl.offset+len(sl.specs)])
	constrain(s.Builder, vars, newP)
	for i, w := range vars {
		s.values[w], s.updated[w] = newP[i], true
	}
	s.newState[k] = append([]backend.Value{}, newS...) // non-nil: applied
}

// applyMulti applies each of a MultiOptimizer's optimizers to the
// variables their paths give it, as Keras's MultiOptimizer.apply does.
func (s *Step) applyMulti(multi *optimizers.MultiOptimizer, grads []backend.Value, vars []*layers.Weight) {
	paths := make([]string, len(vars))
	for i, w := range vars {
		paths[i] = w.Name
		if p, ok := s.c.paths[w]; ok {
			paths[i] = p
		}
	}
	sel, err := multi.Select(paths)
	if err != nil {
		s.fail("%v", err)
		return
	}
	for k, opt := range multi.Optimizers() {
		var g []backend.Value
		var v []*layers.Weight
		for i := range vars {
			if sel[i] == k {
				g, v = append(g, grads[i]), append(v, vars[i])
			}
		}
		if len(v) > 0 {
			s.Apply(opt, g, v)
		}
	}
}

// Assign sets the variable w to value in a train step (Keras's
// variable.assign(value)): later calls in the step see value, and it is
// the variable's value after the step. w is a variable of the step's
// model or of a model outside it, such as a target network moved toward
// the trained one (Polyak averaging) or an EMA copy. In a data-parallel
// job, the values are averaged over the processes, as layers'
// assignments are.
func (s *Step) Assign(w *layers.Weight, value backend.Value) {
	if !s.training {
		s.fail("Assign was called in a %s: only a training step changes variables", s.kind)
		return
	}
	if !s.known(w, "Assign") {
		return
	}
	if value == nil || !value.Shape().Equal(w.Shape) {
		var shape backend.Shape
		if value != nil {
			shape = value.Shape()
		}
		s.fail("Assign: the value for variable %q%s has shape %v, the variable %v: give a value of the variable's shape", w.Name, s.whose(w), shape, w.Shape)
		return
	}
	s.values[w], s.updated[w], s.assigned[w] = value, true, true
}

// Value returns the variable w's current value in the step (Keras's
// reading a variable inside train_step): its value when the step began,
// or what an optimizer or Assign made it since. w is a variable of the
// step's model or of any other model.
func (s *Step) Value(w *layers.Weight) backend.Value {
	if !s.known(w, "Value") {
		if w == nil {
			return s.Scalar(0)
		}
		return s.zeros([]*layers.Weight{w})[0]
	}
	return s.values[w]
}

// checkLogs validates a step's logs: at least one, named, distinct, and
// scalars unless they came from ComputeMetrics.
func (s *Step) checkLogs(logs StepLogs) {
	if len(logs) == 0 {
		s.fail("the step returned no logs: return at least its loss, e.g. keras.StepLogs{{Name: \"loss\", Value: loss}}")
		return
	}
	seen := map[string]bool{}
	for _, l := range logs {
		switch {
		case strings.TrimSpace(l.Name) == "":
			s.fail("a log has no name: name every value the step returns")
		case seen[l.Name]:
			s.fail("two logs are called %q: give each its own name", l.Name)
		case l.Value == nil:
			s.fail("log %q has no value", l.Name)
		case l.acc == nil && !l.weighted && len(l.Value.Shape()) != 0:
			s.fail("log %q has shape %v: return a scalar (reduce it with s.Mean)", l.Name, l.Value.Shape())
		}
		seen[l.Name] = true
	}
}

// layout returns the stats layout of logs.
func (logs StepLogs) layout() []stat {
	var out []stat
	next := 0
	for _, l := range logs {
		st := stat{name: l.Name, offset: next, size: 1, batchMean: l.acc == nil && !l.weighted}
		switch {
		case l.acc != nil:
			st.acc, st.size = l.acc, l.acc.Size()
		case l.weighted:
			st.weighted, st.size = true, 2
		}
		next += st.size
		out = append(out, st)
	}
	return out
}

func (logs StepLogs) values() []backend.Value {
	out := make([]backend.Value, len(logs))
	for i, l := range logs {
		out[i] = l.Value
	}
	return out
}
