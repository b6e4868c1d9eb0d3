package keras

import (
	"fmt"
	"slices"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
)

// hyperparameters is the length of one optimizer's part of the training
// step's settings vector: learning rate, iteration count, update flag,
// EMA overwrite flag (see optimizers.Hyperparameters).
const hyperparameters = 4

// This file is kerasgo's one step compiler: the functions an engine
// compiles, in the stateless form of DESIGN.md, where every tensor a
// step reads is an input and every tensor it changes is an output
// (stepInputs names the inputs' parts):
//
//	train:   (params, optState, hyper, xs, ys[, sws]) -> (stats, updated params', optState')
//	eval:    (params, xs, ys[, sws])               -> (stats)
//	predict: (params, xs)                          -> (yPreds)
//
// The training and evaluation steps are StepFuncs: the built-in ones
// (default_steps.go) or the user's (CompileOptions.TrainStep, TestStep),
// compiled alike by trainFunc and testFunc. xs holds one tensor per model
// input (a custom step's: its data as given), ys one per output, and sws,
// when the data has sample weights, one weight array per output,
// (batch,) or (batch, steps). stats is the step's logs in one vector, laid out as the step's
// plan says (step_plan.go), so that the loop reads a step's scalars back
// in one copy. The updated params are the plan's, in weight order. hyper
// holds, for each optimizer the step applies (compiled.slots), its
// learning rate, iteration count and step flags: inputs, not constants,
// so that callbacks can change them between steps.

// stepInputs are a compiled step's inputs by part.
type stepInputs struct {
	params, state []backend.Value
	// outside are the values of the variables of models outside the
	// step's own that a custom step calls (compiled.outside).
	outside     []backend.Value
	hyper       backend.Value // nil outside training
	xs, ys, sws []backend.Value
}

// splitInputs names the parts of a step's inputs: nP weights, nO
// variables of outside models, then (train steps only) nS optimizer
// states and the hyperparameters, nX x arrays, nY y arrays and, when
// weighted, nY sample-weight vectors.
func splitInputs(in []backend.Value, train bool, nP, nO, nS, nX, nY int, weighted bool) stepInputs {
	var l stepInputs
	l.params, in = in[:nP], in[nP:]
	l.outside, in = in[:nO], in[nO:]
	if train {
		l.state, l.hyper, in = in[:nS], in[nS], in[nS+1:]
	}
	l.xs, in = in[:nX], in[nX:]
	l.ys, in = in[:nY], in[nY:]
	if weighted {
		l.sws = in[:nY]
	}
	return l
}

func (m *Model) predictFunc() backend.Func {
	nP := len(m.weights)
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		return m.forward(b, in[:nP], in[nP:], false), nil
	}
}

// headLosses returns each output's loss (before its loss weight), for the
// outputs that have one, weighted by the sample weights sws (nil: none)
// and the outputs' masks (nil where an output carries none), as Keras's
// Loss.__call__ reduces them.
func headLosses(b backend.Builder, heads []*head, ys, preds, sws, masks []backend.Value) []backend.Value {
	var out []backend.Value
	for i, h := range heads {
		if h.loss == nil {
			continue
		}
		var sw backend.Value
		if sws != nil {
			sw = sws[i]
		}
		if wl, ok := h.loss.(losses.Weighted); ok && (sw != nil || masks[i] != nil) {
			out = append(out, losses.ReduceMasked(b, wl, ys[i], preds[i], sw, masks[i]))
		} else {
			out = append(out, h.loss.Compute(b, ys[i], preds[i]))
		}
	}
	return out
}

// headsLoss returns the sum of each output's loss times its weight.
func headsLoss(b backend.Builder, heads []*head, ys, preds, sws, masks []backend.Value) backend.Value {
	return weightedTotal(b, heads, headLosses(b, heads, ys, preds, sws, masks))
}

// weightedTotal returns the sum of the outputs' losses (headLosses) times
// their weights.
func weightedTotal(b backend.Builder, heads []*head, outputLosses []backend.Value) backend.Value {
	var total backend.Value
	k := 0
	for _, h := range heads {
		if h.loss == nil {
			continue
		}
		l := outputLosses[k]
		k++
		if h.weight != 1 {
			l = b.Mul(l, b.Scalar(h.weight))
		}
		if total == nil {
			total = l
		} else {
			total = b.Add(total, l)
		}
	}
	return total
}

// hasLoss reports whether any output has a compiled loss.
func hasLoss(heads []*head) bool {
	for _, h := range heads {
		if h.loss != nil {
			return true
		}
	}
	return false
}

// pack joins scalars and vectors into one vector.
func pack(b backend.Builder, vals []backend.Value) backend.Value {
	parts := make([]backend.Value, len(vals))
	for i, v := range vals {
		parts[i] = b.Reshape(v, backend.Shape{v.Shape().Size()})
	}
	return b.Concat(0, parts...)
}

// compileStep compiles the step of key's kind for batch d's shapes on
// bind's engine (c is nil for a prediction without Compile). The binding
// caches it per key (exeCache): the smaller last batch of an epoch gets
// its own entry and is trained, not dropped.
func (m *Model) compileStep(bind *binding, c *compiled, key exeKey, d hostData) (backend.Executable, error) {
	specs := m.stepSpecs(c, key.kind, d, key.weighted, false)
	var fn backend.Func
	switch key.kind {
	case trainStep:
		fn = m.trainFunc(c, d, key.weighted, nil)
	case evalStep:
		fn = m.testFunc(c, d, key.weighted, nil)
	default:
		fn = m.predictFunc()
	}
	var seed int64
	if c != nil {
		seed = c.opts.Seed + int64(key.batch)*7919 + int64(key.kind)
	}
	if dp := m.dist(); dp != nil { // each process draws its own dropout masks
		seed += int64(dp.Rank()) * 1000003
	}
	return bind.be.Compile(fn, specs, backend.CompileOptions{Seed: seed})
}

// stepSpecs returns the specs of the inputs of the step of kind for batch
// d, in stepInputs's order. discover leaves out the outside models'
// variables and the optimizers' state, which the step's planning trace
// does not read (and which are not known before a custom step was first
// traced).
func (m *Model) stepSpecs(c *compiled, kind exeKind, d hostData, weighted, discover bool) []backend.Spec {
	var specs []backend.Spec
	for _, w := range m.weights {
		specs = append(specs, backend.Spec{Shape: w.Shape, DType: backend.Float32})
	}
	if !discover {
		for _, w := range c.outside(kind) {
			specs = append(specs, backend.Spec{Shape: w.Shape, DType: backend.Float32})
		}
	}
	if kind == trainStep {
		if !discover {
			for _, s := range c.optSpecs {
				specs = append(specs, backend.Spec{Shape: s.Shape, DType: backend.Float32})
			}
		}
		specs = append(specs, backend.Spec{Shape: c.hyperShape(), DType: backend.Float32})
	}
	// The x arrays' dtypes follow the model's inputs (resolveData), so the
	// batch size and the kind key one executable.
	for _, a := range d.x {
		specs = append(specs, backend.Spec{Shape: backend.Shape(a.Shape).Clone(), DType: a.DType()})
	}
	if kind != predictStep {
		for _, a := range d.y {
			specs = append(specs, backend.Spec{Shape: backend.Shape(a.Shape).Clone(), DType: backend.Float32})
		}
		if weighted {
			for _, a := range d.sw {
				specs = append(specs, backend.Spec{Shape: backend.Shape(a.Shape).Clone(), DType: backend.Float32})
			}
		}
	}
	return specs
}

// trainFunc is the training step for batch d: the compiled TrainStep, or
// the built-in one (defaultTrainStep). With plan nil it compiles the step
// the plan describes (c.trainPlan), and fails if the step does something
// else; with plan non-nil it is the planning trace (planTrainStep), which
// fills plan in: the optimizers the step applies (c.slots), the
// variables it changes, and its logs.
func (m *Model) trainFunc(c *compiled, d hostData, weighted bool, plan *stepPlan) backend.Func {
	planning := plan != nil
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		nS, outside := len(c.optSpecs), []*layers.Weight(nil)
		if planning {
			nS = 0 // the planning trace reads no optimizer state, and finds the outside variables
		} else {
			outside = c.trainPlan.outside
		}
		l := splitInputs(in, true, len(m.weights), len(outside), nS, len(d.x), len(d.y), weighted)
		s := m.newStep(b, c, l, true, planning, outside)
		s.newState = make([][]backend.Value, len(c.slots))
		logs, err := runStepFunc(c.trainStep(), s, StepData{X: l.xs, Y: l.ys, SampleWeights: l.sws})
		if err != nil {
			return nil, err
		}
		// In a data-parallel job, the layers' assignments (moving
		// statistics) and the logs are averaged over the processes; the
		// built-in step did it already, with its gradients.
		s.averageTogether(nil, logs)
		var updated []int
		var newValues []backend.Value
		for i, w := range s.vars {
			if s.updated[w] {
				updated = append(updated, i)
				newValues = append(newValues, s.values[w])
			}
		}
		if planning {
			plan.updated, plan.stats, plan.outside = updated, logs.layout(), s.vars[len(m.weights):]
			return []backend.Value{pack(b, logs.values())}, nil
		}
		p := c.trainPlan
		if !slices.Equal(updated, p.updated) || !sameStats(logs.layout(), p.stats) {
			return nil, fmt.Errorf("train step: it changed other variables or returned other logs than when it was first traced: the step must do the same thing every time it is called")
		}
		for k, st := range s.newState {
			if st == nil {
				return nil, fmt.Errorf("train step: optimizer %s was applied when the step was first traced but not now: the step must do the same thing every time it is called", c.slots[k].opt.Name())
			}
		}
		st := s.averagedStats
		if st == nil { // not in a data-parallel job
			st = pack(b, logs.values())
		}
		out := append([]backend.Value{st}, newValues...)
		for _, ns := range s.newState {
			out = append(out, ns...)
		}
		return out, nil
	}
}

// testFunc is the evaluation step for batch d: the compiled TestStep, or
// the built-in one (defaultTestStep). With plan non-nil (the planning
// trace of a custom test step, testLayout) it records the step's logs
// there, and on the first trace the outside models' variables it calls.
func (m *Model) testFunc(c *compiled, d hostData, weighted bool, plan *testPlan) backend.Func {
	discover := plan != nil && plan.outside != nil
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		var outside []*layers.Weight
		if !discover {
			outside = c.outside(evalStep)
		}
		l := splitInputs(in, false, len(m.weights), len(outside), 0, len(d.x), len(d.y), weighted)
		s := m.newStep(b, c, l, false, discover, outside)
		logs, err := runStepFunc(c.testStep(), s, StepData{X: l.xs, Y: l.ys, SampleWeights: l.sws})
		if err != nil {
			return nil, err
		}
		if plan != nil {
			*plan.layout = logs.layout()
		}
		if discover {
			*plan.outside = s.vars[len(m.weights):]
		}
		return []backend.Value{pack(b, logs.values())}, nil
	}
}
