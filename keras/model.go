package keras

import (
	"errors"
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Model is a network of layers with Keras's training API. Build one with
// NewSequential or NewModel.
type Model struct {
	// Name appears in Summary ("sequential", "functional").
	Name string

	pending []layers.Layer // Sequential layers waiting for an input shape
	input   *layers.KerasTensor
	output  *layers.KerasTensor
	nodes   []*layers.KerasTensor // every layer call, inputs first, in execution order
	weights []*layers.Weight      // every weight, in layer order

	values     [][]float32 // host values of weights; nil before initialisation
	compiled   *compiled
	nameCount  map[string]int
	sequential bool // built by NewSequential (saved as Keras's Sequential)
	// stopRequested is Keras's model.stop_training: set by a callback,
	// it ends Fit after the current batch.
	stopRequested bool
	resume        resumePoint // where the starting Fit begins (ResumeAt)
}

// NewSequential returns a linear stack of layers, like keras.Sequential.
// If the first layer is an Input (layers.Input(...).Layer() or
// &layers.InputLayer{...}) the model is built at once and shape errors are
// reported here; otherwise it is built from the data's shape at the first
// Fit, Evaluate or Predict (or by Build).
func NewSequential(ls ...any) (*Model, error) {
	m := &Model{Name: "sequential", sequential: true}
	for i, l := range ls {
		switch v := l.(type) {
		case *layers.KerasTensor:
			if i != 0 {
				return nil, fmt.Errorf("NewSequential: argument %d is an Input; only the first may be", i)
			}
			if v.Err() != nil {
				return nil, v.Err()
			}
			if _, ok := v.Layer().(*layers.InputLayer); !ok {
				return nil, fmt.Errorf("NewSequential: argument 0 is the output of a layer; pass layers, starting with layers.Input(...)")
			}
			m.input = v
		case layers.Layer:
			if in, ok := v.(*layers.InputLayer); ok {
				if i != 0 {
					return nil, fmt.Errorf("NewSequential: argument %d is an InputLayer; only the first may be", i)
				}
				m.input = layers.Input(in.Shape...)
				if m.input.Err() != nil {
					return nil, m.input.Err()
				}
				continue
			}
			m.pending = append(m.pending, v)
		default:
			return nil, fmt.Errorf("NewSequential: argument %d is a %T, not a layer", i, l)
		}
	}
	if len(m.pending) == 0 {
		return nil, errors.New("NewSequential: a model needs at least one layer")
	}
	if m.input != nil {
		shape := m.input.Shape()
		if err := m.Build(shape[1:]...); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Build builds a Sequential model for samples of the given shape (without
// the batch dimension). Models built from an Input are already built.
func (m *Model) Build(sampleShape ...int) error {
	if m.output != nil {
		in := m.input.Shape()[1:]
		if !in.Equal(sampleShape) {
			return fmt.Errorf("model %q is built for input %v, not %v", m.Name, m.input.Shape(), append(backend.Shape{-1}, sampleShape...))
		}
		return nil
	}
	if m.input == nil {
		m.input = layers.Input(sampleShape...)
		if m.input.Err() != nil {
			return m.input.Err()
		}
	}
	m.nameLayer(m.input.Layer())
	x := m.input
	for _, l := range m.pending {
		m.nameLayer(l)
		x = layers.Apply(l, x)
		if x.Err() != nil {
			m.input = nil
			return x.Err()
		}
	}
	return m.setGraph(m.input, x)
}

// NewModel returns a functional model from its input to its output, like
// keras.Model(inputs, outputs). It reports the first error met while the
// layers were applied.
func NewModel(input, output *layers.KerasTensor) (*Model, error) {
	if input == nil || output == nil {
		return nil, errors.New("NewModel needs an input and an output")
	}
	if output.Err() != nil {
		return nil, output.Err()
	}
	if _, ok := input.Layer().(*layers.InputLayer); !ok {
		return nil, errors.New("NewModel: the input must come from layers.Input")
	}
	m := &Model{Name: "functional"}
	if err := m.setGraph(input, output); err != nil {
		return nil, err
	}
	m.nameLayer(input.Layer())
	for _, n := range m.nodes {
		m.nameLayer(n.Layer())
	}
	return m, nil
}

// setGraph orders the layer calls from input to output and collects the
// weights.
func (m *Model) setGraph(input, output *layers.KerasTensor) error {
	seen := map[*layers.KerasTensor]bool{}
	var order []*layers.KerasTensor
	reachesInput, foreign := false, false
	var visit func(t *layers.KerasTensor)
	visit = func(t *layers.KerasTensor) {
		if seen[t] {
			return
		}
		seen[t] = true
		for _, in := range t.Inputs() {
			visit(in)
		}
		if t == input {
			reachesInput = true
			return
		}
		if _, ok := t.Layer().(*layers.InputLayer); ok {
			foreign = true
			return
		}
		order = append(order, t)
	}
	visit(output)
	if !reachesInput {
		return errors.New("the model's output does not depend on its input")
	}
	if foreign {
		return errors.New("the model's output depends on an Input other than the model's input: models with several inputs are not supported yet")
	}
	m.input, m.output, m.nodes = input, output, order
	seenW := map[*layers.Weight]bool{}
	m.weights = nil
	for _, n := range order {
		for _, w := range n.Layer().Common().Weights() {
			if !seenW[w] {
				seenW[w] = true
				m.weights = append(m.weights, w)
			}
		}
	}
	return nil
}

// nameLayer gives an unnamed layer Keras's default name: the class in
// snake_case, with _1, _2, ... for later ones.
func (m *Model) nameLayer(l layers.Layer) {
	if l.Common().Name != "" {
		return
	}
	if m.nameCount == nil {
		m.nameCount = map[string]int{}
	}
	base := serialization.SnakeCase(l.ClassName())
	n := m.nameCount[base]
	m.nameCount[base] = n + 1
	if n == 0 {
		l.Common().Name = base
	} else {
		l.Common().Name = fmt.Sprintf("%s_%d", base, n)
	}
}

// Built reports whether the model knows its input shape and has its weights
// declared.
func (m *Model) Built() bool { return m.output != nil }

func (m *Model) errNotBuilt() error {
	return fmt.Errorf("model %q is not built yet: start it with layers.Input(...), call Build, or Fit it on data first", m.Name)
}

// InputShape returns the model's input shape with -1 for the batch.
func (m *Model) InputShape() (backend.Shape, error) {
	if !m.Built() {
		return nil, m.errNotBuilt()
	}
	return m.input.Shape(), nil
}

// OutputShape returns the model's output shape with -1 for the batch.
func (m *Model) OutputShape() (backend.Shape, error) {
	if !m.Built() {
		return nil, m.errNotBuilt()
	}
	return m.output.Shape(), nil
}

// Layers returns the model's layers in execution order, the input layer
// first; a layer applied more than once is listed once.
func (m *Model) Layers() []layers.Layer {
	out := []layers.Layer{m.input.Layer()}
	seen := map[layers.Layer]bool{}
	for _, n := range m.nodes {
		if l := n.Layer(); !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// CountParams returns the number of weight values.
func (m *Model) CountParams() int {
	n := 0
	for _, w := range m.weights {
		n += w.Shape.Size()
	}
	return n
}

// forward computes the model's output from x with the given weight values.
func (m *Model) forward(b backend.Builder, weights []backend.Value, x backend.Value, training bool) backend.Value {
	out, _ := m.forwardWithUpdates(b, weights, x, training)
	return out
}

// forwardWithUpdates also returns the new values layers assigned to
// non-trainable weights (layers.Context.Assign) in a training step.
func (m *Model) forwardWithUpdates(b backend.Builder, weights []backend.Value, x backend.Value, training bool) (backend.Value, map[*layers.Weight]backend.Value) {
	values := make(map[*layers.Weight]backend.Value, len(weights))
	for i, w := range m.weights {
		values[w] = weights[i]
	}
	ctx := layers.NewContext(b, training, values)
	vals := map[*layers.KerasTensor]backend.Value{m.input: x}
	for _, n := range m.nodes {
		in := make([]backend.Value, len(n.Inputs()))
		for i, t := range n.Inputs() {
			in[i] = vals[t]
		}
		c := ctx
		if mode, fixed := n.Training(); fixed {
			c = ctx.InMode(mode)
		}
		vals[n] = n.Layer().Call(c, in)
	}
	return vals[m.output], ctx.Updates()
}
