package keras

import (
	"fmt"
	"hash/fnv"
	"slices"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// The weight lifecycle: a model's weights are its layers' variables
// (layers.Weight, deduplicated, in layer order). They are initialised
// once, uploaded to the engine a model runs on (binding.refresh), trained
// there, and read back when someone asks for them.

// ready makes a compiled, built model's state on its engine: initialises
// the variables that have no value yet (seeded by CompileOptions.Seed),
// uploads them, resolves the trainable set and makes the optimizer's
// state. It runs once per Compile. Call with m.mu held.
func (m *Model) ready() error {
	c := m.compiled
	if c.bind != nil {
		return nil
	}
	for i, h := range c.heads {
		h.name = m.outputs[i].Layer().Common().Name // known now
	}
	m.initWeights(c.opts.Seed)
	bind := newBinding(c.be, m.weights)
	if err := bind.refresh(); err != nil {
		return err
	}
	c.trainable = m.lossTrainedWeights(c)
	trainShapes := make([]backend.Shape, len(c.trainable))
	for k, i := range c.trainable {
		trainShapes[k] = m.weights[i].Shape
	}
	c.bind = bind
	all := m.WeightPaths()
	c.paths = make(map[*layers.Weight]string, len(all))
	for i, w := range m.weights {
		c.paths[w] = all[i]
	}
	if c.opts.TrainStep != nil {
		// A custom step's optimizers are known once it was traced
		// (planTrainStep).
		return nil
	}
	paths := make([]string, len(c.trainable))
	for k, i := range c.trainable {
		paths[k] = all[i]
	}
	if multi, ok := optimizers.AsMulti(c.opt); ok {
		// Each of its optimizers is a slot of its own, for its variables
		// (Step.Apply splits them so); one no variable selects is never
		// applied, as in Keras.
		sel, err := multi.Select(paths)
		if err != nil {
			return err
		}
		c.slots = nil
		for k, opt := range multi.Optimizers() {
			var idx []int
			for j, i := range c.trainable {
				if sel[j] == k {
					idx = append(idx, i)
				}
			}
			if len(idx) > 0 {
				if _, err := c.slotFor(opt, idx, true, m.weights); err != nil {
					return err
				}
			}
		}
		c.layOutSlots()
		return initOptimizerState(c)
	}
	rule := optimizers.ForVariables(c.opt, paths)
	c.optSpecs = optimizers.States(rule, trainShapes)
	c.slots = []*optSlot{{opt: c.opt, rule: rule, vars: c.trainable, specs: c.optSpecs}}
	return initOptimizerState(c)
}

// initOptimizerState makes the optimizers' state as c.optSpecs declares
// it (zeros, or a slot's initial value) and publishes it.
func initOptimizerState(c *compiled) error {
	init := make([][]float32, len(c.optSpecs))
	shapes := make([]backend.Shape, len(c.optSpecs))
	for i, s := range c.optSpecs {
		init[i] = make([]float32, s.Shape.Size())
		for j := range init[i] {
			init[i][j] = float32(s.Init)
		}
		shapes[i] = s.Shape
	}
	state, err := upload(c.be, init, shapes)
	if err != nil {
		return err
	}
	return c.bind.publish(stateChange{optState: state}, nil)
}

// engine returns the binding a prediction runs on: the compiled one, or
// for a model that was never compiled, one on the default engine (chosen
// as Compile chooses it, or LoadOptions.Backend), made on first use.
// Keras predicts without compile too.
func (m *Model) engine() (*binding, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.compiled != nil {
		if err := m.ready(); err != nil {
			return nil, err
		}
		return m.compiled.bind, nil
	}
	if m.inference == nil {
		be, err := backend.Open(m.inferenceEngine)
		if err != nil {
			return nil, err
		}
		m.initWeights(resolveSeed(0))
		m.inference = newBinding(be, m.weights)
	}
	return m.inference, nil
}

// Close releases what the model holds on its engine (tensors, compiled
// steps, on libtorch C++ memory that Go's collector does not see), after
// the calls running on it return; the variables keep their values,
// written back from the engine. The model stays usable: a later Predict
// opens its engine again, and a compiled model must be compiled again to
// train. Close while Fit runs is an error. A server that replaces a model
// by a new version closes the old one (package serving does).
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fitting {
		return fmt.Errorf("model %q is training (Fit is running): Close it after Fit returns", m.Name)
	}
	return m.closeBindings()
}

// closeBindings leaves the model's engines, writing the values they hold
// back to the variables. Call with m.mu held.
func (m *Model) closeBindings() error {
	var err error
	if m.compiled != nil {
		if m.compiled.bind != nil {
			err = m.compiled.bind.close()
		} else {
			m.compiled.be.Close()
		}
		m.compiled = nil
	}
	if m.inference != nil {
		if e := m.inference.close(); err == nil {
			err = e
		}
		m.inference = nil
	}
	return err
}

// trainableWeights returns the indices of the weights marked Trainable
// in layers not frozen with SetTrainable(false) (Keras's
// model.trainable_weights).
func (m *Model) trainableWeights() []int {
	frozen := m.frozenWeights()
	var out []int
	for i, w := range m.weights {
		if w.Trainable && !frozen[w] {
			out = append(out, i)
		}
	}
	return out
}

// frozenWeights returns the weights training leaves alone, as Keras 3's
// trainable_weights leaves them out: every weight of a frozen model, and
// otherwise the weights of each frozen layer, however deep (a nested
// model's layers, the layers a layer holds). SetTrainable has passed a
// setting down to the layers below, so each layer's own flag decides for
// its own weights: a layer unfrozen inside a frozen base trains.
func (m *Model) frozenWeights() map[*layers.Weight]bool {
	frozen := map[*layers.Weight]bool{}
	if !m.Trainable() {
		for _, w := range m.weights {
			frozen[w] = true
		}
		return frozen
	}
	seen := map[layers.Layer]bool{}
	var walk func(l layers.Layer)
	walk = func(l layers.Layer) {
		if seen[l] {
			return
		}
		seen[l] = true
		if !l.Common().Trainable() {
			for _, w := range l.Common().Weights() {
				frozen[w] = true
			}
		}
		for _, s := range layers.Sublayers(l) {
			walk(s.Layer)
		}
	}
	for _, l := range m.Layers() {
		if l != layers.Layer(m) {
			walk(l)
		}
	}
	return frozen
}

// lossTrainedWeights returns the trainable weights that training updates:
// those the loss depends on. Weights that only feed outputs without a
// loss get no gradient, and Keras skips them (with a warning); so does
// kerasgo, silently.
func (m *Model) lossTrainedWeights(c *compiled) []int {
	used := map[*layers.Weight]bool{}
	seen := map[*layers.KerasTensor]bool{}
	var visit func(t *layers.KerasTensor)
	visit = func(t *layers.KerasTensor) {
		if seen[t] {
			return
		}
		seen[t] = true
		for _, w := range layerWeights(t.Layer()) {
			used[w] = true
		}
		for _, in := range t.Inputs() {
			visit(in)
		}
	}
	for i, h := range c.heads {
		if h.loss != nil {
			visit(m.outputs[i])
		}
	}
	var out []int
	for _, i := range m.trainableWeights() {
		if used[m.weights[i]] {
			out = append(out, i)
		}
	}
	return out
}

// checkTrainable reports a change of trainable weights since the
// optimizer state was made: as in Keras, the model must be compiled again.
func (m *Model) checkTrainable(c *compiled) error {
	if c.opts.TrainStep != nil {
		return nil // the step chooses what it trains
	}
	now := m.lossTrainedWeights(c)
	if !slices.Equal(now, c.trainable) {
		return fmt.Errorf("the model's trainable weights changed since Compile (a layer was frozen or unfrozen): call Compile again, as Keras requires")
	}
	return nil
}

func upload(be backend.Backend, values [][]float32, shapes []backend.Shape) ([]backend.Tensor, error) {
	out := make([]backend.Tensor, len(values))
	for i, v := range values {
		t, err := be.FromFloat32(v, shapes[i])
		if err != nil {
			be.Release(out[:i]...)
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// initWeights gives every variable without a value its first one, drawn
// from its initializer with a generator seeded from seed and the
// variable's layer and name, so that a weight's starting value does not
// depend on the other layers. Variables that have a value (trained in
// another model, loaded, assigned) keep it.
func (m *Model) initWeights(seed int64) {
	owner := m.weightOwners()
	for _, w := range m.weights {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s/%s", owner[w], w.Name)
		w.Initialize(uint64(seed), h.Sum64())
	}
}

// weightOwners names each weight's layer ("dense", or "model/dense" inside
// a nested model).
func (m *Model) weightOwners() map[*layers.Weight]string {
	owner := map[*layers.Weight]string{}
	for _, n := range m.nodes {
		l := n.Layer()
		if inner, ok := l.(*Model); ok {
			for w, name := range inner.weightOwners() {
				owner[w] = inner.Name + "/" + name
			}
			continue
		}
		for w, path := range heldWeights(l) {
			owner[w] = l.Common().Name + path
		}
	}
	return owner
}

// heldWeights names each weight of a layer by where it is held: "" for
// the layer's own, "/dense1" for a sublayer's (see layers.Sublayers), each
// weight at its first place.
func heldWeights(l layers.Layer) map[*layers.Weight]string {
	out := map[*layers.Weight]string{}
	seen := map[layers.Layer]bool{}
	var walk func(l layers.Layer, path string)
	walk = func(l layers.Layer, path string) {
		if seen[l] {
			return
		}
		seen[l] = true
		if inner, ok := l.(*Model); ok && path != "" {
			for w, name := range inner.weightOwners() {
				if _, done := out[w]; !done {
					out[w] = path + "/" + name
				}
			}
			return
		}
		for _, w := range l.Common().Weights() {
			if _, done := out[w]; !done {
				out[w] = path
			}
		}
		for _, s := range layers.Sublayers(l) {
			walk(s.Layer, path+"/"+s.Path)
		}
	}
	walk(l, "")
	return out
}

// Weights returns the model's variables (its layers', each once, in layer
// order), like Keras's model.weights. They belong to the layers: every
// model containing a layer shares its variables.
func (m *Model) Weights() []*layers.Weight { return slices.Clone(m.weights) }

// TrainableWeights returns the variables training updates: those marked
// trainable in layers that are not frozen (Keras's
// model.trainable_weights), for a custom step's Gradients and Apply.
func (m *Model) TrainableWeights() []*layers.Weight {
	var out []*layers.Weight
	for _, i := range m.trainableWeights() {
		out = append(out, m.weights[i])
	}
	return out
}

// NonTrainableWeights returns the model's other variables (Keras's
// model.non_trainable_weights): frozen layers' weights and state such as
// BatchNormalization's moving statistics.
func (m *Model) NonTrainableWeights() []*layers.Weight {
	trainable := map[int]bool{}
	for _, i := range m.trainableWeights() {
		trainable[i] = true
	}
	var out []*layers.Weight
	for i, w := range m.weights {
		if !trainable[i] {
			out = append(out, w)
		}
	}
	return out
}

// GetWeights returns a copy of every weight's values, in layer order
// (kernel before bias), like Keras's get_weights. While Fit trains the
// model in another goroutine, the values are those between two training
// steps.
func (m *Model) GetWeights() ([][]float32, error) {
	if !m.Built() {
		return nil, m.errNotBuilt()
	}
	vals, _, err := m.snapshot()
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(vals))
	for i, v := range vals {
		out[i] = slices.Clone(v)
	}
	return out, nil
}

// snapshot returns the weights' values and, for a compiled model that is
// ready, the optimizer's state of the same training step. The values may
// be shared with the variables: do not modify them.
func (m *Model) snapshot() ([][]float32, *optimizerSnapshot, error) {
	m.mu.Lock()
	var bind *binding
	if m.compiled != nil {
		if err := m.ready(); err != nil {
			m.mu.Unlock()
			return nil, nil, err
		}
		bind = m.compiled.bind
	} else {
		m.initWeights(resolveSeed(0))
	}
	c := m.compiled
	m.mu.Unlock()
	if bind == nil {
		vals, _, err := readVariables(m.weights)
		return vals, nil, err
	}
	s, err := bind.acquire()
	if err != nil {
		return nil, nil, err
	}
	defer bind.release(s)
	vals := make([][]float32, len(m.weights))
	for i, w := range m.weights {
		h, v := weightOps.HolderAndVersion(w)
		if s.params[i] != nil && (h == varHolder(bind) || v == s.versions[i]) {
			// The value of this snapshot's step (the variable may have
			// moved on since it was taken).
			if vals[i], err = bind.be.ToFloat32(s.params[i]); err != nil {
				return nil, nil, err
			}
			continue
		}
		if vals[i], _, err = weightOps.Current(w); err != nil {
			return nil, nil, err
		}
	}
	if len(c.slots) == 0 { // a custom step not traced yet: no optimizer state
		return vals, nil, nil
	}
	opt := &optimizerSnapshot{iterations: s.iterations}
	for _, t := range s.optState {
		v, err := bind.be.ToFloat32(t)
		if err != nil {
			return nil, nil, err
		}
		opt.state = append(opt.state, v)
	}
	return vals, opt, nil
}

// optimizerSnapshot is the optimizers' state at one training step.
type optimizerSnapshot struct {
	iterations int64
	state      [][]float32 // every optimizer's, in compiled.optSpecs order
}

// SetWeights replaces every weight's values; the list must match
// GetWeights in length and sizes. Every model containing the layers uses
// the new values from its next step on.
func (m *Model) SetWeights(values [][]float32) error {
	if !m.Built() {
		return m.errNotBuilt()
	}
	if len(values) != len(m.weights) {
		return fmt.Errorf("SetWeights got %d arrays; the model has %d weights", len(values), len(m.weights))
	}
	for i, w := range m.weights {
		if len(values[i]) != w.Shape.Size() {
			return fmt.Errorf("SetWeights: weight %d (%s, shape %v) needs %d values, got %d", i, w.Name, w.Shape, w.Shape.Size(), len(values[i]))
		}
	}
	for i, w := range m.weights {
		if err := w.Assign(values[i]); err != nil {
			return err
		}
	}
	return nil
}

// WeightPaths returns a path for each of Weights, as Keras's
// variable.path names a layer's own weights: the layer's name, then the
// weight's ("dense/kernel"), after the model's name in a Sequential
// model, whose layers Keras builds inside it ("sequential/dense/kernel").
// A weight of a layer another layer holds, or of a nested model, has the
// place the weights file gives it under its owner ("block/dense1/bias",
// "encoder/dense/kernel").
func (m *Model) WeightPaths() []string {
	owner := m.weightOwners()
	prefix := ""
	if m.sequential {
		prefix = m.Name + "/"
	}
	out := make([]string, len(m.weights))
	for i, w := range m.weights {
		out[i] = prefix + owner[w] + "/" + w.Name
	}
	return out
}

// WeightShapes returns the shape of each of Weights.
func (m *Model) WeightShapes() [][]int {
	out := make([][]int, len(m.weights))
	for i, w := range m.weights {
		out[i] = slices.Clone([]int(w.Shape))
	}
	return out
}
