package keras

import (
	"fmt"
	"slices"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/saving"
)

// Custom steps (CompileOptions.TrainStep, TestStep) compile into the same
// stateless step as the built-in ones (steps.go): the StepFunc is called
// on a Step whose variables start as the step's param inputs; its
// optimizers read their state and hyperparameters from the step's inputs;
// the variables it changed and the optimizers' new state are the step's
// outputs. Which optimizers it applies to which variables is learned once,
// by tracing the step on shapes alone (discoverTrainStep), before the
// optimizers' state is made.

// optSlot is one optimizer a training step applies: to which weights (by
// index), with which state (its part of the step's optimizer state).
type optSlot struct {
	opt    optimizers.Optimizer
	vars   []int
	specs  []optimizers.StateSpec
	offset int // first state in compiled.optSpecs
}

// slotFor returns the slot of opt applied to the weights idx: while
// discovering, a new one the first time; afterwards the slot must exist
// for exactly these weights.
func (c *compiled) slotFor(opt optimizers.Optimizer, idx []int, discover bool, weights []*layers.Weight) (int, error) {
	for k, sl := range c.slots {
		if sl.opt != opt {
			continue
		}
		if !slices.Equal(sl.vars, idx) {
			return 0, fmt.Errorf("optimizer %s was built for %d variables (%s) and is now applied to %d (%s): apply each optimizer to the same variables every step, or use another optimizer for the others",
				opt.Name(), len(sl.vars), names(weights, sl.vars), len(idx), names(weights, idx))
		}
		return k, nil
	}
	if !discover {
		return 0, fmt.Errorf("optimizer %s is applied, but it was not when the step was first traced: the step must do the same thing every time it is called", opt.Name())
	}
	optimizers.ResolveDefaults(opt)
	if err := optimizers.Check(opt); err != nil {
		return 0, err
	}
	shapes := make([]backend.Shape, len(idx))
	for k, i := range idx {
		shapes[k] = weights[i].Shape
	}
	sl := &optSlot{opt: opt, vars: idx, specs: optimizers.States(opt, shapes)}
	c.slots = append(c.slots, sl)
	return len(c.slots) - 1, nil
}

func names(weights []*layers.Weight, idx []int) string {
	const most = 3
	var out []string
	for k, i := range idx {
		if k == most {
			out = append(out, fmt.Sprintf("and %d more", len(idx)-most))
			break
		}
		out = append(out, weights[i].Name)
	}
	return fmt.Sprint(out)
}

// hyperShape is the shape of the training step's hyperparameters: four
// per optimizer (at least one optimizer's worth, so that it is never
// empty).
func (c *compiled) hyperShape() backend.Shape {
	return backend.Shape{hyperparameters * max(len(c.slots), 1)}
}

// hyperValues returns the hyperparameters of the step after iterations
// steps: each optimizer's learning rate, the iteration count and its step
// flags.
func (c *compiled) hyperValues(iterations int64) []float32 {
	out := make([]float32, 0, hyperparameters*max(len(c.slots), 1))
	for _, sl := range c.slots {
		apply, overwrite := optimizers.StepFlags(sl.opt, iterations)
		out = append(out, float32(c.rateOf(sl.opt, iterations)), float32(optimizers.Updates(sl.opt, iterations)), float32(apply), float32(overwrite))
	}
	for len(out) < cap(out) {
		out = append(out, 0)
	}
	return out
}

// newStep returns the Step a StepFunc runs on, with in's params as the
// variables' values.
func (m *Model) newStep(b backend.Builder, c *compiled, l stepInputs, training, discover bool) *Step {
	s := &Step{Builder: b, m: m, c: c, kind: "test step", training: training, discover: discover,
		index:    make(map[*layers.Weight]int, len(m.weights)),
		values:   make(map[*layers.Weight]backend.Value, len(m.weights)),
		updated:  map[*layers.Weight]bool{},
		assigned: map[*layers.Weight]bool{},
		state:    l.state, hyper: l.hyper,
	}
	if training {
		s.kind = "train step"
	}
	for i, w := range m.weights {
		s.index[w], s.values[w] = i, l.params[i]
	}
	return s
}

// runStepFunc calls fn on s, turning a panic in it into an error (a
// StepFunc is user code; a mistake in it must not crash the program).
func runStepFunc(fn StepFunc, s *Step, data StepData) (logs StepLogs, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s panicked: %v (a StepFunc must build its step with the Step's ops and methods)", s.kind, r)
		}
	}()
	logs, err = fn(s, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.kind, err)
	}
	if s.err != nil {
		return nil, s.err
	}
	if err := s.Err(); err != nil { // an op's error, named after the step
		return nil, fmt.Errorf("%s: %w", s.kind, err)
	}
	s.checkLogs(logs)
	return logs, s.err
}

// customTrainFunc is the training step of c.opts.TrainStep for batch d.
// Discovering (discover), it records the optimizers' slots, the updated
// variables and the stats layout in c; afterwards it checks that the
// step still does the same.
func (m *Model) customTrainFunc(c *compiled, d hostData, weighted, discover bool) backend.Func {
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		nS := len(c.optSpecs)
		if discover {
			nS = 0
		}
		l := splitInputs(in, true, len(m.weights), nS, len(d.x), len(d.y), weighted)
		s := m.newStep(b, c, l, true, discover)
		s.newState = make([][]backend.Value, len(c.slots))
		logs, err := runStepFunc(c.opts.TrainStep, s, StepData{X: l.xs, Y: l.ys, SampleWeights: l.sws})
		if err != nil {
			return nil, err
		}
		var updated []int
		var newValues, assigned []backend.Value
		for i, w := range m.weights {
			if s.updated[w] {
				updated = append(updated, i)
				newValues = append(newValues, s.values[w])
			}
		}
		stats := logs.layout()
		if discover {
			c.updated, c.trainStats = updated, stats
			return []backend.Value{pack(b, logs.values())}, nil
		}
		if !slices.Equal(updated, c.updated) || !sameStats(stats, c.trainStats) {
			return nil, fmt.Errorf("train step: it changed other variables or returned other logs than when it was first traced: the step must do the same thing every time it is called")
		}
		for k, st := range s.newState {
			if st == nil {
				return nil, fmt.Errorf("train step: optimizer %s was applied when the step was first traced but not now: the step must do the same thing every time it is called", c.slots[k].opt.Name())
			}
		}
		st := pack(b, logs.values())
		if dp := m.dist(); dp != nil {
			// Layers' assignments (moving statistics) are averaged as
			// the built-in step averages them; the gradients already were
			// (Step.Gradients).
			var at []int
			for k, i := range updated {
				if s.assigned[m.weights[i]] {
					at = append(at, k)
					assigned = append(assigned, newValues[k])
				}
			}
			_, assigned, st = averageAcrossProcesses(b, dp, stats, nil, assigned, st)
			for j, k := range at {
				newValues[k] = assigned[j]
			}
		}
		out := append([]backend.Value{st}, newValues...)
		for _, ns := range s.newState {
			out = append(out, ns...)
		}
		return out, nil
	}
}

// customTestFunc is the evaluation step of c.opts.TestStep for batch d.
// The step's stats layout is written to layout.
func (m *Model) customTestFunc(c *compiled, d hostData, weighted bool, layout *[]stat) backend.Func {
	return func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
		l := splitInputs(in, false, len(m.weights), 0, len(d.x), len(d.y), weighted)
		s := m.newStep(b, c, l, false, false)
		logs, err := runStepFunc(c.opts.TestStep, s, StepData{X: l.xs, Y: l.ys, SampleWeights: l.sws})
		if err != nil {
			return nil, err
		}
		*layout = logs.layout()
		return []backend.Value{pack(b, logs.values())}, nil
	}
}

func sameStats(a, b []stat) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].name != b[i].name || a[i].size != b[i].size || a[i].batchMean != b[i].batchMean {
			return false
		}
	}
	return true
}

// discoverTrainStep traces the custom training step on batch d's shapes
// (once per Compile): it learns which optimizers the step applies to which
// variables, makes their state, and learns the step's logs.
func (m *Model) discoverTrainStep(c *compiled, d hostData) error {
	if c.opts.TrainStep == nil || c.discovered {
		return nil
	}
	specs := m.stepSpecs(c, trainStep, d, d.sw != nil, true)
	c.slots = nil
	if _, err := backend.Trace(m.customTrainFunc(c, d, d.sw != nil, true), specs); err != nil {
		c.slots = nil
		return err
	}
	c.optSpecs = nil
	for _, sl := range c.slots {
		sl.offset = len(c.optSpecs)
		c.optSpecs = append(c.optSpecs, sl.specs...)
	}
	if len(c.slots) == 1 && c.slots[0].opt == c.opt {
		c.trainable = c.slots[0].vars
	}
	if err := initOptimizerState(c); err != nil {
		return err
	}
	c.discovered = true
	return nil
}

// testLayout returns the stats layout of the evaluation step on batch d:
// the built-in one, or the custom test step's logs, learned by tracing it
// on d's shapes.
func (m *Model) testLayout(c *compiled, d hostData) ([]stat, error) {
	if c.opts.TestStep == nil {
		if !hasLoss(c.heads) {
			return nil, fmt.Errorf("model %q has no TestStep and Compile got no Loss, so it cannot be evaluated: give CompileOptions.TestStep or a Loss", m.Name)
		}
		return stats(c.heads), nil
	}
	var layout []stat
	specs := m.stepSpecs(c, evalStep, d, d.sw != nil, false)
	_, err := backend.Trace(m.customTestFunc(c, d, d.sw != nil, &layout), specs)
	return layout, err
}

// trainLayout returns the stats layout of the training step.
func (c *compiled) trainLayout() []stat {
	if c.opts.TrainStep != nil {
		return c.trainStats
	}
	return stats(c.heads)
}

// hasCustomStep reports whether the model is compiled with its own step
// of kind (training or evaluation).
func (m *Model) hasCustomStep(kind exeKind) bool {
	c := m.currentCompiled()
	if c == nil {
		return false
	}
	if kind == trainStep {
		return c.opts.TrainStep != nil
	}
	return c.opts.TestStep != nil
}

// stepData resolves the data given to a custom step: the arrays as given
// (by position; a custom step's data need not match the model's inputs),
// every one with the same number of samples.
func stepData(x, y ArraySet, what string) (hostData, error) {
	if x == nil {
		return hostData{}, fmt.Errorf("%s got no x: give the input data", what)
	}
	asList := func(set ArraySet, name string) ([]Array, error) {
		switch v := set.(type) {
		case nil:
			return nil, nil
		case Array:
			return []Array{v}, nil
		case Arrays:
			return v, nil
		}
		return nil, fmt.Errorf("%s: a custom step takes its %s as an Array or Arrays (by position), not %T", what, name, set)
	}
	xs, err := asList(x, "x")
	if err != nil {
		return hostData{}, err
	}
	ys, err := asList(y, "y")
	if err != nil {
		return hostData{}, err
	}
	if len(xs) == 0 {
		return hostData{}, fmt.Errorf("%s got no x arrays: give at least one", what)
	}
	n := -1
	check := func(a Array, label string) (Array, error) {
		if err := a.check(label); err != nil {
			return a, err
		}
		if a.Samples() == 0 {
			return a, fmt.Errorf("%s got no samples: %s has shape %v", what, label, backend.Shape(a.Shape))
		}
		if n >= 0 && a.Samples() != n {
			return a, fmt.Errorf("%s has %d samples, the first x array %d: give every array the same samples", label, a.Samples(), n)
		}
		n = a.Samples()
		return a, nil
	}
	for i := range xs {
		if xs[i], err = check(xs[i], fmt.Sprintf("x[%d]", i)); err != nil {
			return hostData{}, err
		}
	}
	for i := range ys {
		if ys[i], err = check(ys[i], fmt.Sprintf("y[%d]", i)); err != nil {
			return hostData{}, err
		}
		if ys[i], err = asFloats(ys[i], fmt.Sprintf("y[%d]", i)); err != nil {
			return hostData{}, err
		}
	}
	return hostData{x: xs, y: ys}, nil
}

// slotPath is where a weights file holds the state of the step's k-th
// optimizer: Keras's "optimizer" for the compiled one, "optimizer_1",
// "optimizer_2", ... for a custom step's others, in the order it applies
// them (Keras names them after the model's attributes, which Go does not
// have).
func (c *compiled) slotPath(k int) string {
	n := 0
	for i := 0; i < k && i < len(c.slots); i++ {
		if c.slots[i].opt != c.opt {
			n++
		}
	}
	if k < len(c.slots) && c.slots[k].opt == c.opt {
		return saving.OptimizerPath
	}
	return fmt.Sprintf("%s_%d", saving.OptimizerPath, n+1)
}

// onlyCompiledOptimizer reports whether the training step applies the
// compiled optimizer alone (to the variables Fit's built-in step trains,
// or a custom step's choice): then Fit's end replaces the weights by
// their moving averages when it keeps them (UseEMA).
func (c *compiled) onlyCompiledOptimizer() bool {
	return len(c.slots) == 1 && c.slots[0].opt == c.opt
}
