package keras

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kerasgo/kerasgo/internal/settings"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Model is a network of layers with Keras's training API. Build one with
// NewSequential, NewModel or NewFunctional.
//
// A Model is also a layer (as in Keras): applied to a KerasTensor with
// layers.Apply, it runs inside another model, sharing its weights with
// every other use of it (for example a pretrained base under a new head).
type Model struct {
	// Base holds the model's Name, which appears in Summary ("sequential",
	// "functional") and names it as a layer of another model.
	layers.Base

	pending []layers.Layer // Sequential layers waiting for an input shape
	inputs  []*layers.KerasTensor
	outputs []*layers.KerasTensor
	// inputKeys are the keys of a Functional model Keras built on a dict
	// of inputs (keras.Model({"color": a, "size": b}, ...)), one per
	// input in inputs' order, so that its config is written back as a
	// dict; nil for a list of inputs.
	inputKeys []string
	nodes     []*layers.KerasTensor // every layer call, in execution order (inputs excluded)
	ordered   []layers.Layer        // the layers in Keras's order (kerasLayerOrder), the inputs among them
	// feeds are the engine graph's inputs: the inputs, or, with host
	// layers, what the engine reads of the inputs and of their outputs
	// (see engineFeeds).
	feeds   []*layers.KerasTensor
	onHost  map[*layers.KerasTensor]bool // the calls the host stage runs (hostNodes); nil for none
	weights []*layers.Weight             // every weight, in layer order

	mu sync.Mutex // guards what follows, and building a Sequential model
	// compiled is the training configuration and the engine (Compile);
	// inference is the default engine of a model predicted on without
	// Compile. At most one of them is set.
	compiled  *compiled
	inference *binding
	// inferenceEngine is the engine a model never compiled predicts on
	// (LoadOptions.Backend with NoCompile); "" chooses as Compile does.
	inferenceEngine string
	fitting         bool // a Fit is running (one at a time)
	// loadNotes are what LoadModel skipped of the file, for Notes.
	loadNotes []string

	nameCount  map[string]int // the default layer names given, by base
	sequential bool           // built by NewSequential (saved as Keras's Sequential)
	// stopRequested is Keras's model.stop_training: set by a callback,
	// it ends Fit after the current batch.
	stopRequested atomic.Bool
	resume        resumePoint // where the starting Fit begins (ResumeAt); Fit's goroutine only
}

// NewSequential returns a linear stack of layers, like keras.Sequential.
// If the first layer is an InputLayer (&layers.InputLayer{Shape:
// []int{784}}, Keras's keras.Input(shape=(784,)) at the head of the list)
// the model is built at once and shape errors are reported here;
// otherwise it is built from the data's shape at the first Fit, Evaluate
// or Predict (or by BuildInput).
func NewSequential(ls ...layers.Layer) (*Model, error) {
	m := &Model{sequential: true}
	m.Name = uniqueName("sequential")
	for i, l := range ls {
		if settings.IsNil(l) {
			return nil, fmt.Errorf("NewSequential: argument %d is a nil %T: pass layers made first (e.g. &layers.Dense{Units: 8})", i, l)
		}
		if in, ok := l.(*layers.InputLayer); ok {
			if i != 0 {
				return nil, fmt.Errorf("NewSequential: argument %d is an InputLayer; only the first may be", i)
			}
			t := layers.NewInput(&layers.InputLayer{Shape: in.Shape, DType: in.DType})
			if t.Err() != nil {
				return nil, t.Err()
			}
			t.Layer().Common().Name = in.Name
			m.inputs = []*layers.KerasTensor{t}
			continue
		}
		m.pending = append(m.pending, l)
	}
	if len(m.pending) == 0 {
		return nil, errors.New("NewSequential: a model needs at least one layer")
	}
	if m.inputs != nil {
		shape := m.inputs[0].Shape()
		if err := m.BuildInput(shape[1:]...); err != nil {
			return nil, err
		}
	}
	return m, nil
}

var modelNames struct {
	sync.Mutex
	count map[string]int
}

// uniqueName returns Keras's automatic name for the next model of a
// kind: "sequential", then "sequential_1", "sequential_2", ... in this
// process, as Keras's auto_name does, so that two automatically named
// models can be nested in a third.
func uniqueName(base string) string {
	modelNames.Lock()
	defer modelNames.Unlock()
	if modelNames.count == nil {
		modelNames.count = map[string]int{}
	}
	n := modelNames.count[base]
	modelNames.count[base] = n + 1
	if n == 0 {
		return base
	}
	return fmt.Sprintf("%s_%d", base, n)
}

// ClearSession resets the automatic model names, like Keras's
// keras.utils.clear_session: the next NewSequential is "sequential"
// again. Models made before keep their names.
func ClearSession() {
	modelNames.Lock()
	defer modelNames.Unlock()
	modelNames.count = nil
}

// BuildInput builds a Sequential model for samples of the given shape
// (without the batch dimension), like Keras's model.build. Models started
// with an Input are built already.
func (m *Model) BuildInput(sampleShape ...int) error {
	if m.Built() {
		if len(m.inputs) != 1 {
			return fmt.Errorf("model %q has %d inputs and is built already", m.Name, len(m.inputs))
		}
		in := m.inputs[0].Shape()[1:]
		if !in.Equal(sampleShape) {
			return fmt.Errorf("model %q is built for input %v, not %v", m.Name, m.inputs[0].Shape(), append(backend.Shape{-1}, sampleShape...))
		}
		return nil
	}
	if m.inputs == nil {
		t := layers.Input(sampleShape...)
		if t.Err() != nil {
			return t.Err()
		}
		m.inputs = []*layers.KerasTensor{t}
	}
	input := m.inputs[0]
	m.nameLayers(append([]layers.Layer{input.Layer()}, m.pending...))
	seen := map[string]layers.Layer{input.Layer().Common().Name: input.Layer()}
	for _, l := range m.pending {
		name := l.Common().Name
		if other, dup := seen[name]; dup && other != l {
			m.inputs = nil
			return fmt.Errorf("two layers of model %q are named %q (%s and %s): layer names must be unique in a model, as Keras requires; rename one (layers.Named)", m.Name, name, other.ClassName(), l.ClassName())
		}
		seen[name] = l
	}
	x := input
	for _, l := range m.pending {
		x = layers.Apply(l, x)
		if x.Err() != nil {
			m.inputs = nil
			return x.Err()
		}
	}
	return m.setGraph([]*layers.KerasTensor{input}, []*layers.KerasTensor{x})
}

// NewModel returns a functional model from its input to its output, like
// keras.Model(inputs, outputs). It reports the first error met while the
// layers were applied. For several inputs or outputs, use NewFunctional.
func NewModel(input, output *layers.KerasTensor) (*Model, error) {
	if input == nil || output == nil {
		return nil, errors.New("NewModel needs an input and an output")
	}
	return NewFunctional([]*layers.KerasTensor{input}, []*layers.KerasTensor{output})
}

// NewFunctional returns a functional model with several inputs and
// outputs, like keras.Model(inputs=[...], outputs=[...]). Fit, Evaluate and
// Predict take one array per input and per output, in this order
// (keras.Arrays) or by the input and output layers' names
// (keras.NamedArrays).
func NewFunctional(inputs, outputs []*layers.KerasTensor) (*Model, error) {
	if len(inputs) == 0 || len(outputs) == 0 {
		return nil, errors.New("NewFunctional needs at least one input and one output")
	}
	for i, out := range outputs {
		if out == nil {
			return nil, fmt.Errorf("output %d is nil", i)
		}
		if out.Err() != nil {
			return nil, out.Err()
		}
	}
	for i, in := range inputs {
		if in == nil {
			return nil, fmt.Errorf("input %d is nil", i)
		}
		if _, ok := in.Layer().(*layers.InputLayer); !ok {
			return nil, fmt.Errorf("input %d of the model must come from layers.Input, not from layer %s", i, layers.Describe(in.Layer()))
		}
	}
	m := &Model{}
	m.Name = uniqueName("functional")
	var all []layers.Layer
	for _, in := range inputs {
		all = append(all, in.Layer())
	}
	m.nameLayers(all)
	if err := m.setGraph(inputs, outputs); err != nil {
		return nil, err
	}
	for _, n := range m.nodes {
		all = append(all, n.Layer())
	}
	m.nameLayers(all)
	if err := m.checkNames(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, name := range m.OutputNames() {
		if seen[name] {
			return nil, fmt.Errorf("two outputs are named %q: name the layers (layers.Named) so that each output has its own name", name)
		}
		seen[name] = true
	}
	return m, nil
}

// setGraph orders the layer calls from the inputs to the outputs and
// collects the weights.
func (m *Model) setGraph(inputs, outputs []*layers.KerasTensor) error {
	isInput := map[*layers.KerasTensor]int{}
	for i, in := range inputs {
		if _, dup := isInput[in]; dup {
			return fmt.Errorf("input %d is listed twice", i)
		}
		isInput[in] = i
	}
	seen := map[*layers.KerasTensor]bool{}
	used := make([]bool, len(inputs))
	var order []*layers.KerasTensor
	var foreign *layers.KerasTensor
	var visit func(t *layers.KerasTensor)
	visit = func(t *layers.KerasTensor) {
		if seen[t] {
			return
		}
		seen[t] = true
		if h := t.Head(); h != t { // another output of a call: the call is its head's
			visit(h)
			return
		}
		if i, ok := isInput[t]; ok {
			used[i] = true
			return
		}
		if _, ok := t.Layer().(*layers.InputLayer); ok {
			foreign = t
			return
		}
		for _, in := range t.Inputs() {
			visit(in)
		}
		if mk := t.MaskArgument(); mk != nil {
			visit(mk)
		}
		order = append(order, t)
	}
	for _, out := range outputs {
		visit(out)
	}
	if foreign != nil {
		return fmt.Errorf("the model's outputs depend on input layer %s, which is not among the model's inputs: list it in the inputs", layers.Describe(foreign.Layer()))
	}
	for i, u := range used {
		if !u {
			return fmt.Errorf("input %d (%s) is not used by any output", i, layers.Describe(inputs[i].Layer()))
		}
	}
	onHost := hostNodes(order)
	feeds, err := engineFeeds(inputs, outputs, order, onHost)
	if err != nil {
		return err
	}
	m.inputs, m.outputs, m.nodes, m.feeds = inputs, outputs, order, feeds
	m.onHost = onHost
	m.ordered = kerasLayerOrder(inputs, outputs)
	seenW := map[*layers.Weight]bool{}
	m.weights = nil
	for _, l := range m.ordered {
		for _, w := range layerWeights(l) {
			if !seenW[w] {
				seenW[w] = true
				m.weights = append(m.weights, w)
			}
		}
	}
	return nil
}

// checkNames reports two layers of one name: Keras requires unique names,
// and kerasgo names outputs' data, losses and logs by them.
func (m *Model) checkNames() error {
	seen := map[string]layers.Layer{}
	for _, l := range m.Layers() {
		name := l.Common().Name
		if other, dup := seen[name]; dup && other != l {
			return fmt.Errorf("two layers are named %q (%s and %s): layer names must be unique in a model", name, other.ClassName(), l.ClassName())
		}
		seen[name] = l
	}
	return nil
}

// nameLayers gives each unnamed layer of ls Keras's default name: the
// class in snake_case, with _1, _2, ... for later ones, skipping the
// names ls's named layers hold already (a layer another model named).
// The count is the model's, not the process's as in Keras, so that two
// models built alike get the same names and, with one Seed, the same
// initial weights (seeded by layer name).
func (m *Model) nameLayers(ls []layers.Layer) {
	taken := map[string]bool{}
	for _, l := range ls {
		if name := l.Common().Name; name != "" {
			taken[name] = true
		}
	}
	if m.nameCount == nil {
		m.nameCount = map[string]int{}
	}
	name := func(l layers.Layer) {
		if l.Common().Name != "" {
			return
		}
		base := serialization.SnakeCase(layers.PythonClassName(l))
		for {
			n := m.nameCount[base]
			m.nameCount[base] = n + 1
			name := base
			if n > 0 {
				name = fmt.Sprintf("%s_%d", base, n)
			}
			if !taken[name] {
				l.Common().Name = name
				taken[name] = true
				return
			}
		}
	}
	for _, l := range ls {
		name(l)
	}
	// Then the layers they hold (a nested model has named its own, and a
	// wrapper such as Bidirectional names its layers as Keras does), so
	// that messages name them; their place in files is their attribute.
	var nameHeld func(l layers.Layer)
	nameHeld = func(l layers.Layer) {
		switch l.(type) {
		case *Model, layers.SavedGrouper:
			return
		}
		for _, s := range layers.Sublayers(l) {
			name(s.Layer)
			nameHeld(s.Layer)
		}
	}
	for _, l := range ls {
		nameHeld(l)
	}
}

// Built reports whether the model knows its input shape and has its weights
// declared.
func (m *Model) Built() bool { return m.outputs != nil }

func (m *Model) errNotBuilt() error {
	return fmt.Errorf("model %q is not built yet: start it with layers.Input(...), call BuildInput, or Fit it on data first", m.Name)
}

// InputShape returns the model's input shape with -1 for the batch (the
// first input's, for a model with several).
func (m *Model) InputShape() (backend.Shape, error) {
	if !m.Built() {
		return nil, m.errNotBuilt()
	}
	return m.inputs[0].Shape(), nil
}

// OutputShape returns the model's output shape with -1 for the batch (the
// first output's, for a model with several).
func (m *Model) OutputShape() (backend.Shape, error) {
	if !m.Built() {
		return nil, m.errNotBuilt()
	}
	return m.outputs[0].Shape(), nil
}

// InputNames returns the names of the model's input layers, in order.
func (m *Model) InputNames() []string { return tensorNames(m.inputs) }

// OutputNames returns the names of the model's outputs (their layers'
// names, as Keras's model.output_names), in order.
func (m *Model) OutputNames() []string { return tensorNames(m.outputs) }

func tensorNames(ts []*layers.KerasTensor) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Layer().Common().Name
		if k := t.OutputIndex(); k > 0 { // a layer's further output: its state
			out[i] = fmt.Sprintf("%s_%d", out[i], k)
		}
	}
	return out
}

// Layers returns the model's layers in Keras's order (model.layers): by
// depth, from the inputs to the outputs, a layer applied more than once
// listed once. The model's weights (Weights, GetWeights) and its weights
// files follow this order, as Keras's do.
func (m *Model) Layers() []layers.Layer {
	return slices.Clone(m.ordered)
}

// Inputs returns the model's input tensors (Keras's model.inputs), from
// which a new model can be built over the same layers.
func (m *Model) Inputs() []*layers.KerasTensor { return slices.Clone(m.inputs) }

// Outputs returns the model's output tensors (Keras's model.outputs).
func (m *Model) Outputs() []*layers.KerasTensor { return slices.Clone(m.outputs) }

// GetLayer returns the model's layer called name, like Keras's
// model.get_layer(name).
func (m *Model) GetLayer(name string) (layers.Layer, error) {
	var names []string
	for _, l := range m.Layers() {
		if l.Common().Name == name {
			return l, nil
		}
		names = append(names, l.Common().Name)
	}
	return nil, fmt.Errorf("model %q has no layer named %q; its layers are %v", m.Name, name, names)
}

// LayerAt returns the model's layer at index in Layers() (Keras's
// model.get_layer(index=...), except that kerasgo's Layers lists a
// Sequential model's InputLayer too, at 0).
func (m *Model) LayerAt(index int) (layers.Layer, error) {
	ls := m.Layers()
	if index < 0 || index >= len(ls) {
		return nil, fmt.Errorf("model %q has %d layers; index %d is out of range", m.Name, len(ls), index)
	}
	return ls[index], nil
}

// CountParams returns the number of weight values.
func (m *Model) CountParams() int {
	n := 0
	for _, w := range m.weights {
		n += w.Shape.Size()
	}
	return n
}

// layerWeights returns a layer's weights: its own and those of the
// layers it holds (layers.WeightsOf), a nested model's all of them.
func layerWeights(l layers.Layer) []*layers.Weight {
	if inner, ok := l.(*Model); ok {
		return inner.weights
	}
	return layers.WeightsOf(l)
}

// Sublayers returns the model's layers with their paths in Keras's
// weights file ("layers/dense"), so that a model held by a custom layer
// is a layers.Container.
func (m *Model) Sublayers() []layers.Sublayer {
	if !m.Built() { // a Sequential model waiting for its input shape
		out := make([]layers.Sublayer, len(m.pending))
		for i, l := range m.pending {
			out[i] = layers.Sublayer{Path: "layers/" + l.Common().Name, Layer: l}
		}
		return out
	}
	ls, paths := m.layerPaths(kerasOrder)
	out := make([]layers.Sublayer, len(ls))
	for i, l := range ls {
		out[i] = layers.Sublayer{Path: paths[i], Layer: l}
	}
	return out
}

// ClassName returns Keras's class of the model: "Sequential" or
// "Functional".
func (m *Model) ClassName() string {
	if m.sequential {
		return "Sequential"
	}
	return "Functional"
}

// SetTrainable freezes (false) or unfreezes (true) every layer of the
// model, as setting Keras's model.trainable does (see
// layers.Base.SetTrainable: a layer unfrozen afterwards trains inside the
// frozen model); compile the model that trains it again afterwards.
func (m *Model) SetTrainable(trainable bool) { layers.SetTrainable(m, trainable) }

// Build makes the model usable as a layer of another model (layers.Apply
// calls it): it checks the inputs against the model's and returns its
// output shape. To build a Sequential model from a sample shape, use
// BuildInput.
func (m *Model) Build(inputs []backend.Shape) (backend.Shape, error) {
	if !m.Built() {
		return nil, fmt.Errorf("model %q is not built: start it with layers.Input(...) before using it as a layer", m.Name)
	}
	if len(m.outputs) != 1 {
		return nil, fmt.Errorf("model %q has %d outputs: kerasgo uses models with one output as layers so far", m.Name, len(m.outputs))
	}
	if len(inputs) != len(m.inputs) {
		return nil, fmt.Errorf("model %q takes %d inputs, got %d", m.Name, len(m.inputs), len(inputs))
	}
	if len(m.onHost) > 0 {
		return nil, fmt.Errorf("model %q has layers that compute on the host (StringLookup, TextVectorization, ...), which kerasgo cannot run inside another model yet: apply those layers in the outer model, to its inputs", m.Name)
	}
	for i, s := range inputs {
		want := m.inputs[i].Shape()
		if len(s) != len(want) || !s[1:].Equal(want[1:]) {
			return nil, fmt.Errorf("input %d of model %q is incompatible: expected shape %v, received %v", i, m.Name, want, s)
		}
	}
	return m.outputs[0].Shape(), nil
}

// Call runs the model as a layer of another model.
func (m *Model) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	return m.call(ctx, in)[0]
}

// forward computes the model's outputs from its inputs xs with the given
// weight values.
func (m *Model) forward(b backend.Builder, weights []backend.Value, xs []backend.Value, training bool) []backend.Value {
	ctx := m.forwardContext(b, weights, training)
	return m.call(ctx, xs)
}

// forwardContext returns the context of a computation of the model with
// weights (in m.weights's order); after m.call, it holds the new values
// layers assigned to non-trainable weights in a training step
// (layers.Context.Updates) and the terms they added to the loss
// (layers.Context.Losses).
func (m *Model) forwardContext(b backend.Builder, weights []backend.Value, training bool) *layers.Context {
	values := make(map[*layers.Weight]backend.Value, len(weights))
	for i, w := range m.weights {
		values[w] = weights[i]
	}
	return layers.NewContext(b, training, values)
}

// call runs the engine's layers from their inputs xs (the feeds: the
// model's inputs, or what its host stage gave) in ctx and returns the
// outputs.
func (m *Model) call(ctx *layers.Context, xs []backend.Value) []backend.Value {
	// Masks follow the values in ctx's table, as Keras's _keras_mask
	// follows tensors: a layer reads its inputs' masks from there, and may
	// clear them (MultiHeadAttention does, as Keras's).
	vals := make(map[*layers.KerasTensor]backend.Value, len(m.nodes)+len(xs))
	for i, in := range m.feeds {
		vals[in] = xs[i]
		if mk := ctx.Mask(i); mk != nil { // a nested model's inputs' masks
			ctx.SetKerasMask(xs[i], mk)
		}
	}
	for _, n := range m.nodes {
		if m.onHost[n] { // computed before the engine ran: its output is a feed
			continue
		}
		in := make([]backend.Value, len(n.Inputs()))
		inMasks := make([]backend.Value, len(n.Inputs()))
		for i, t := range n.Inputs() {
			in[i] = vals[t]
			inMasks[i] = ctx.KerasMask(in[i])
		}
		if mk := n.MaskArgument(); mk != nil && len(inMasks) > 0 { // Keras's layer(x, mask=m)
			inMasks[0] = vals[mk]
		}
		c := ctx.WithMasks(inMasks)
		if mode, fixed := n.Training(); fixed {
			c = c.InMode(mode)
		}
		if s, ok := ctx.B.(backend.Scoper); ok { // an op that fails names this layer
			s.SetScope("layer " + layers.Describe(n.Layer()))
		}
		vs := layers.CallNode(c, n, in)
		for i, o := range n.Outputs() {
			vals[o] = vs[i]
		}
		// As Keras's _set_mask_metadata: a mask the call already gave its
		// output (a nested model's) wins over the layer's ComputeMask.
		out := ctx.KerasMask(vs[0])
		if mk, ok := n.Layer().(layers.Masker); ok && out == nil {
			out = mk.ComputeMask(c, in, inMasks)
		}
		if out != nil {
			ctx.SetKerasMask(vs[0], out)
		}
	}
	if s, ok := ctx.B.(backend.Scoper); ok {
		s.SetScope("")
	}
	outs := make([]backend.Value, len(m.outputs))
	for i, o := range m.outputs {
		outs[i] = vals[o]
	}
	return outs
}

// hasUnknownDims reports whether an input has a dimension of any length
// besides the batch (Keras's None): its steps are then compiled for each
// shape of the data.
func (m *Model) hasUnknownDims() bool {
	for _, in := range m.feeds {
		if in.Shape().UnknownAfterBatch() {
			return true
		}
	}
	return false
}

// fitsShape reports whether data of shape got (samples first) fits an
// input of shape want (batch first; -1 besides it is any length).
func fitsShape(got []int, want backend.Shape) bool {
	if len(got) != len(want) {
		return false
	}
	for i := 1; i < len(want); i++ {
		if want[i] >= 0 && got[i] != want[i] {
			return false
		}
	}
	return true
}
