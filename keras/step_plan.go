package keras

import (
	"fmt"
	"slices"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/saving"
)

// A step's plan: the optimizers a training step applies, each to its
// variables (optSlot), the variables it changes and its logs (stepPlan).
// The StepFunc is called on a Step whose variables start as the step's
// param inputs; its optimizers read their state and hyperparameters from
// the step's inputs; the variables it changed and the optimizers' new
// state are the step's outputs (step_compiler.go). The plan is learned
// once per Compile, by tracing the step on shapes alone (planTrainStep);
// a custom step's optimizers' state is made then.

// optSlot is one optimizer a training step applies: to which weights (by
// index), with which state (its part of the step's optimizer state).
type optSlot struct {
	opt optimizers.Optimizer
	// rule is opt bound to the slot's variables (optimizers.ForVariables:
	// Muon's split by their paths); it declares the state and updates.
	rule   optimizers.Optimizer
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
	paths := make([]string, len(idx))
	for k, i := range idx {
		shapes[k], paths[k] = weights[i].Shape, weights[i].Name
		if p, ok := c.paths[weights[i]]; ok {
			paths[k] = p
		}
	}
	rule := optimizers.ForVariables(opt, paths)
	sl := &optSlot{opt: opt, rule: rule, vars: idx, specs: optimizers.States(rule, shapes)}
	c.slots = append(c.slots, sl)
	return len(c.slots) - 1, nil
}

// layOutSlots places the slots' states one after another in
// c.optSpecs.
func (c *compiled) layOutSlots() {
	c.optSpecs = nil
	for _, sl := range c.slots {
		sl.offset = len(c.optSpecs)
		c.optSpecs = append(c.optSpecs, sl.specs...)
	}
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
// model's variables' values and its outside values as those of outside,
// the variables of models outside it that the step calls (their plan's).
func (m *Model) newStep(b backend.Builder, c *compiled, l stepInputs, training, discover bool, outside []*layers.Weight) *Step {
	s := &Step{Builder: b, m: m, c: c, kind: "test step", training: training, discover: discover,
		vars:     append(slices.Clip(m.weights), outside...),
		index:    make(map[*layers.Weight]int, len(m.weights)+len(outside)),
		values:   make(map[*layers.Weight]backend.Value, len(m.weights)+len(outside)),
		owner:    map[*layers.Weight]*Model{},
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
	for k, w := range outside {
		s.index[w], s.values[w] = len(m.weights)+k, l.outside[k]
	}
	return s
}

// runStepFunc calls fn on s, turning a panic in it into an error (a
// StepFunc is user code; a mistake in it must not crash the program).
func runStepFunc(fn StepFunc, s *Step, data StepData) (logs StepLogs, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s panicked: %v (a StepFunc must build its step with the Step's ops and methods)", s.kind, r)
			if first := s.recordedError(); first != nil { // the panic followed an op's error: that is the one to fix
				err = fmt.Errorf("%s: %w", s.kind, first)
			}
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

// recordedError is the first error the step's calls and ops recorded,
// if any.
func (s *Step) recordedError() error {
	if s.err != nil {
		return s.err
	}
	return s.Err()
}

func sameStats(a, b []stat) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].name != b[i].name || a[i].size != b[i].size || a[i].batchMean != b[i].batchMean || a[i].weighted != b[i].weighted {
			return false
		}
	}
	return true
}

// stepPlan is the training step's layout beyond its optimizers
// (compiled.slots): the variables whose new values it returns after its
// stats, by weight index in weight order, and its logs' layout. It is
// computed once per Compile (planTrainStep) and never changed: every
// compilation of the step checks that it still does what its plan says.
type stepPlan struct {
	updated []int
	stats   []stat
	// outside are the variables of the models outside the fitted one
	// that the step calls (a Distiller's teacher) or changes (an EMA
	// copy, a target network), in the order the step takes their values,
	// after the model's own. The model's binding holds them too (adopt).
	outside []*layers.Weight
}

// outside returns the variables of models outside the model that its
// step of kind takes, after its own (none for a prediction).
func (c *compiled) outside(kind exeKind) []*layers.Weight {
	switch {
	case c == nil:
		return nil
	case kind == trainStep:
		if c.trainPlan == nil {
			return nil
		}
		return c.trainPlan.outside
	case kind == evalStep:
		c.testMu.Lock()
		defer c.testMu.Unlock()
		return c.testOutside
	}
	return nil
}

// planTrainStep traces the training step (the custom one or the
// built-in) on batch d's shapes, once per Compile: it learns which
// variables the step changes and its logs (the built-in step: the
// trained weights and the layers' assignments, such as
// BatchNormalization's moving statistics); for a custom step, also which
// optimizers it applies to which variables, whose state it then makes.
func (m *Model) planTrainStep(c *compiled, d hostData) error {
	if c.trainPlan != nil {
		return nil
	}
	custom := c.opts.TrainStep != nil
	if custom {
		c.slots = nil
	}
	plan := &stepPlan{}
	// The step sees what the host stage gives (TextVectorization's token
	// ids), as runStep gives it.
	var err error
	if d.x, err = m.hostFeeds(d.x); err != nil {
		return err
	}
	specs := m.stepSpecs(c, trainStep, d, d.sw != nil, true)
	if _, err := backend.Trace(m.trainFunc(c, d, d.sw != nil, plan), specs); err != nil {
		if custom {
			c.slots = nil
		}
		return err
	}
	if custom {
		c.layOutSlots()
		if len(c.slots) == 1 && c.slots[0].opt == c.opt && !slices.ContainsFunc(c.slots[0].vars, func(i int) bool { return i >= len(m.weights) }) {
			c.trainable = c.slots[0].vars
		}
		if err := initOptimizerState(c); err != nil {
			return err
		}
	}
	c.trainPlan = plan
	// The model's engine holds the outside models' variables the step
	// calls beside its own: uploaded when they change, not every step,
	// and, when the step changes them, trained there.
	if c.bind == nil {
		return nil
	}
	return c.bind.adopt(plan.outside)
}

// trainStep is the training step Fit runs: the compiled TrainStep, or
// the built-in one.
func (c *compiled) trainStep() StepFunc {
	if c.opts.TrainStep != nil {
		return c.opts.TrainStep
	}
	return defaultTrainStep
}

// testStep is the evaluation step Evaluate runs: the compiled TestStep,
// or the built-in one.
func (c *compiled) testStep() StepFunc {
	if c.opts.TestStep != nil {
		return c.opts.TestStep
	}
	return defaultTestStep
}

// testLayout returns the stats layout of the evaluation step on batch d:
// the built-in one's (stats), or the custom test step's logs, learned by
// tracing it on d's shapes.
func (m *Model) testLayout(c *compiled, d hostData) ([]stat, error) {
	if c.opts.TestStep == nil {
		if !hasLoss(c.heads) {
			return nil, fmt.Errorf("model %q has no TestStep and Compile got no Loss, so it cannot be evaluated: give CompileOptions.TestStep or a Loss", m.Name)
		}
		return stats(c.heads), nil
	}
	var layout []stat
	plan := &testPlan{layout: &layout}
	c.testMu.Lock()
	planned := c.testPlanned
	c.testMu.Unlock()
	if !planned {
		plan.outside = new([]*layers.Weight)
	}
	specs := m.stepSpecs(c, evalStep, d, d.sw != nil, !planned)
	if _, err := backend.Trace(m.testFunc(c, d, d.sw != nil, plan), specs); err != nil {
		return nil, err
	}
	if !planned {
		c.testMu.Lock()
		if !c.testPlanned { // another Evaluate may have planned it meanwhile
			c.testOutside, c.testPlanned = *plan.outside, true
		}
		c.testMu.Unlock()
	}
	return layout, nil
}

// testPlan is what a planning trace of a custom test step learns: its
// logs' layout and, on the first trace, the variables of the outside
// models it calls (nil outside: they are known).
type testPlan struct {
	layout  *[]stat
	outside *[]*layers.Weight
}

// trainLayout returns the stats layout of the training step.
func (c *compiled) trainLayout() []stat { return c.trainPlan.stats }

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
		if err := a.Validate(label); err != nil {
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
