package keras

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/distribution"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// CompileOptions configure training, like the arguments of Keras's
// model.compile.
type CompileOptions struct {
	// Optimizer is a Keras name ("adam", "sgd", "rmsprop", "adadelta") or an
	// optimizers.Optimizer. Default "rmsprop", as in Keras.
	Optimizer any
	// Loss is a Keras name ("categorical_crossentropy",
	// "sparse_categorical_crossentropy", "binary_crossentropy", "mse"), a
	// losses.Loss or a function. Required. For a model with several
	// outputs, one loss applies to every output; a []any gives one per
	// output (nil: that output is not trained) and a map[string]any one per
	// output name, as Keras's list and dict forms.
	Loss any
	// LossWeights weighs each output's loss in the total that training
	// minimises (Keras's loss_weights): a []float64 by position or a
	// map[string]float64 by output name; default 1 each.
	LossWeights any
	// Metrics are Keras names ("accuracy", ...), metrics.Metric values or
	// functions. For a model with several outputs, Keras's rule applies:
	// one entry per output, each a metric, a []any of metrics or nil.
	Metrics []any
	// OutputMetrics gives metrics by output name (Keras's dict form of
	// metrics), e.g. {"priority": {"mae"}}.
	OutputMetrics map[string][]any
	// Backend selects the engine, e.g. "gorgonia" or "libtorch:cuda".
	// Empty means $KERASGO_BACKEND, then ~/.kerasgo/kerasgo.json, then
	// "gorgonia" (see package backend).
	Backend string
	// Seed makes initial weights and dropout masks reproducible; 0 (the
	// default, Keras's seed=None) draws a different seed each time.
	// Weights are
	// initialised at the first Compile only; compiling again (for example on
	// another engine) keeps the trained weights.
	Seed int64
	// Distribution trains the model data parallel with the other
	// processes of a job (see package distribution): nil trains in this
	// process alone.
	Distribution *distribution.DataParallel
}

// compiled is a model's binding to an engine.
type compiled struct {
	be     backend.Backend
	opts   CompileOptions
	opt    optimizers.Optimizer
	heads  []*head          // per output: loss, loss weight, metrics
	params []backend.Tensor // weights on the engine; nil until ready
	// trainable lists the indices of the weights training updates, as they
	// were when the optimizer state was made (Keras's trainable_variables).
	trainable []int
	// assigned lists the weights whose new values a training step returns
	// after the optimizer state (layers.Context.Assign), in weight order.
	assigned []int
	optSpecs []optimizers.StateSpec
	optState []backend.Tensor
	// iterations counts the training steps taken with this optimizer
	// state (Keras's optimizer.iterations, saved with the model).
	iterations int64
	exes       map[exeKey]backend.Executable
}

type exeKind int

const (
	trainStep exeKind = iota
	evalStep
	predictStep
)

func (k exeKind) String() string {
	return [...]string{"training", "evaluation", "prediction"}[k]
}

type exeKey struct {
	kind     exeKind
	batch    int
	weighted bool // the step takes sample weights
}

// Compile binds the model to an engine with an optimizer, a loss and
// metrics. Names are checked here; an unknown one is an error that lists
// the known ones.
func (m *Model) Compile(opts CompileOptions) error {
	c := &compiled{opts: opts, exes: map[exeKey]backend.Executable{}}
	c.opts.Seed = resolveSeed(opts.Seed)
	var err error
	switch o := opts.Optimizer.(type) {
	case nil:
		c.opt = &optimizers.RMSprop{}
	case string:
		if c.opt, err = optimizers.Get(o); err != nil {
			return err
		}
	case optimizers.Optimizer:
		c.opt = o
	default:
		return fmt.Errorf("the optimizer is a %T: give a name such as \"adam\" or an optimizers.Optimizer", o)
	}
	optimizers.ResolveDefaults(c.opt)
	if err := optimizers.Check(c.opt); err != nil {
		return err
	}
	names := []string{""} // a Sequential model not built yet has one output
	if m.Built() {
		names = m.OutputNames()
	}
	if c.heads, err = resolveHeads(opts, names); err != nil {
		return err
	}
	be, err := backend.Open(opts.Backend)
	if err != nil {
		return err
	}
	c.be = be
	if m.compiled != nil {
		// Keep trained weights: bring them to the host before leaving the
		// old engine.
		if err := m.syncToHost(); err != nil {
			be.Close()
			return err
		}
		m.compiled.close()
	}
	m.compiled = c
	if m.Built() {
		return m.ready()
	}
	return nil
}

// Backend returns the engine the model is compiled on, or nil.
func (m *Model) Backend() backend.Backend {
	if m.compiled == nil {
		return nil
	}
	return m.compiled.be
}

func (c *compiled) close() {
	for _, e := range c.exes {
		e.Close()
	}
	c.be.Release(c.params...)
	c.be.Release(c.optState...)
	c.be.Close()
}

// ready initialises weights, resolves metrics and puts the weights and
// optimizer state on the engine. It runs once the model is built and
// compiled.
func (m *Model) ready() error {
	c := m.compiled
	if c.params != nil {
		return nil
	}
	for i, h := range c.heads {
		h.name = m.outputs[i].Layer().Common().Name // known now
	}
	if m.values == nil {
		m.initWeights(c.opts.Seed)
	}
	params, err := m.upload(m.values, weightShapes(m))
	if err != nil {
		return err
	}
	c.trainable = m.trainedIndices()
	trainShapes := make([]backend.Shape, len(c.trainable))
	for k, i := range c.trainable {
		trainShapes[k] = m.weights[i].Shape
	}
	c.optSpecs = optimizers.States(c.opt, trainShapes)
	init := make([][]float32, len(c.optSpecs))
	shapes := make([]backend.Shape, len(c.optSpecs))
	for i, s := range c.optSpecs {
		init[i] = make([]float32, s.Shape.Size())
		for j := range init[i] {
			init[i][j] = float32(s.Init)
		}
		shapes[i] = s.Shape
	}
	state, err := m.upload(init, shapes)
	if err != nil {
		return err
	}
	c.params, c.optState = params, state
	return nil
}

// trainableIndices returns the indices of the weights training updates:
// those marked Trainable, in layers not frozen with SetTrainable(false).
func (m *Model) trainableIndices() []int {
	frozen := m.frozenWeights()
	var out []int
	for i, w := range m.weights {
		if w.Trainable && !frozen[w] {
			out = append(out, i)
		}
	}
	return out
}

// frozenWeights returns the weights of frozen layers, inside nested
// models too.
func (m *Model) frozenWeights() map[*layers.Weight]bool {
	frozen := map[*layers.Weight]bool{}
	for _, l := range m.Layers() {
		switch {
		case !l.Common().Trainable():
			for _, w := range layerWeights(l) {
				frozen[w] = true
			}
		case l != layers.Layer(m):
			if inner, ok := l.(*Model); ok {
				for w := range inner.frozenWeights() {
					frozen[w] = true
				}
			}
		}
	}
	return frozen
}

// trainedIndices returns the trainable weights that training updates:
// those the loss depends on. Weights that only feed outputs without a
// loss get no gradient, and Keras skips them (with a warning); so does
// kerasgo, silently.
func (m *Model) trainedIndices() []int {
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
	for i, h := range m.compiled.heads {
		if h.loss != nil {
			visit(m.outputs[i])
		}
	}
	var out []int
	for _, i := range m.trainableIndices() {
		if used[m.weights[i]] {
			out = append(out, i)
		}
	}
	return out
}

// checkTrainable reports a change of trainable weights since the
// optimizer state was made: as in Keras, the model must be compiled again.
func (m *Model) checkTrainable() error {
	now := m.trainedIndices()
	if !slices.Equal(now, m.compiled.trainable) {
		return fmt.Errorf("the model's trainable weights changed since Compile (a layer was frozen or unfrozen): call Compile again, as Keras requires")
	}
	return nil
}

func weightShapes(m *Model) []backend.Shape {
	out := make([]backend.Shape, len(m.weights))
	for i, w := range m.weights {
		out[i] = w.Shape
	}
	return out
}

func (m *Model) upload(values [][]float32, shapes []backend.Shape) ([]backend.Tensor, error) {
	out := make([]backend.Tensor, len(values))
	for i, v := range values {
		t, err := m.compiled.be.FromFloat32(v, shapes[i])
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// initWeights draws every weight from its initializer with a generator
// seeded from seed and the weight's layer and name, so that a weight's
// starting value does not depend on the other layers.
func (m *Model) initWeights(seed int64) {
	m.values = make([][]float32, len(m.weights))
	owner := m.weightOwners()
	for i, w := range m.weights {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s/%s", owner[w], w.Name)
		rng := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
		m.values[i] = w.Initializer.Init(w.Shape, rng)
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
		for _, w := range l.Common().Weights() {
			owner[w] = l.Common().Name
		}
	}
	return owner
}

// syncToHost copies the engine's current weights into m.values.
func (m *Model) syncToHost() error {
	c := m.compiled
	if c == nil || c.params == nil {
		return nil
	}
	for i, t := range c.params {
		v, err := c.be.ToFloat32(t)
		if err != nil {
			return err
		}
		m.values[i] = v
	}
	return nil
}

// GetWeights returns a copy of every weight's values, in layer order
// (kernel before bias), like Keras's get_weights.
func (m *Model) GetWeights() ([][]float32, error) {
	if !m.Built() {
		return nil, m.errNotBuilt()
	}
	if m.values == nil {
		if m.compiled != nil {
			if err := m.ready(); err != nil {
				return nil, err
			}
		} else {
			m.initWeights(resolveSeed(0))
		}
	}
	if err := m.syncToHost(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(m.values))
	for i, v := range m.values {
		out[i] = append([]float32(nil), v...)
	}
	return out, nil
}

// SetWeights replaces every weight's values; the list must match
// GetWeights in length and sizes.
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
	m.values = make([][]float32, len(values))
	for i, v := range values {
		m.values[i] = append([]float32(nil), v...)
	}
	if c := m.compiled; c != nil && c.params != nil {
		params, err := m.upload(m.values, weightShapes(m))
		if err != nil {
			return err
		}
		c.be.Release(c.params...)
		c.params = params
	}
	return nil
}

// Optimizer returns the optimizer the model was compiled with (Keras's
// model.optimizer), or nil before Compile. Changing its fields changes
// training from the next step on.
func (m *Model) Optimizer() optimizers.Optimizer {
	if m.compiled == nil {
		return nil
	}
	return m.compiled.opt
}
