package keras

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// A model's host stage is the part of its graph that runs on the host,
// in front of the engine: the calls of its host layers (layers.HostLayer:
// StringLookup, TextVectorization, Hashing, IntegerLookup), which Keras
// runs with TensorFlow inside tf.data. The engine's graph starts where
// the host stage ends: its inputs (the model's feeds) are the model's
// inputs that engine layers read and the host layers' outputs that
// engine layers read. The loop runs the host stage on every batch
// (hostFeeds) before it uploads the batch.
//
// With no host layer, the feeds are the model's inputs.

// hostNodes returns the calls the host stage runs: every host layer's
// (layers.HostLayer), and each call of an engine layer with a host form
// (layers.HostComputable on host data) that a host layer reads, such as a
// Discretization feeding a HashedCrossing. It is nil when there are none.
func hostNodes(nodes []*layers.KerasTensor) map[*layers.KerasTensor]bool {
	var on map[*layers.KerasTensor]bool
	mark := func(n *layers.KerasTensor) {
		if on == nil {
			on = map[*layers.KerasTensor]bool{}
		}
		on[n] = true
	}
	for _, n := range nodes {
		if _, ok := n.Layer().(layers.HostLayer); !ok {
			continue
		}
		mark(n)
		for _, in := range n.Inputs() {
			if _, form := in.HostForm(); form {
				mark(in)
			}
		}
	}
	return on
}

// engineFeeds returns the tensors the engine's graph takes as inputs:
// the model inputs and host calls' outputs (onHost) that an engine layer
// reads or that are outputs of the model, inputs first, in order. It
// refuses a string the engine would have to take (a model output, an
// inverted StringLookup feeding an engine layer).
func engineFeeds(inputs, outputs, nodes []*layers.KerasTensor, onHost map[*layers.KerasTensor]bool) ([]*layers.KerasTensor, error) {
	for _, o := range outputs {
		if o.DType() == backend.String {
			return nil, fmt.Errorf("the model's output %s is strings, which kerasgo's models cannot return yet: end the model with a layer that gives numbers", layers.Describe(o.Layer()))
		}
	}
	if len(onHost) == 0 {
		return inputs, nil
	}
	needed := map[*layers.KerasTensor]bool{}
	for _, o := range outputs {
		needed[o] = true
	}
	for _, n := range nodes {
		if onHost[n] {
			continue
		}
		for _, in := range n.Inputs() {
			needed[in] = true
		}
		if mk := n.MaskArgument(); mk != nil {
			needed[mk] = true
		}
	}
	var feeds []*layers.KerasTensor
	for _, in := range inputs {
		if needed[in] {
			feeds = append(feeds, in)
		}
	}
	for _, n := range nodes {
		if !onHost[n] {
			continue
		}
		for _, o := range n.Outputs() {
			if !needed[o] {
				continue
			}
			if o.DType() == backend.String {
				return nil, fmt.Errorf("layer %s gives strings to the engine's layers, which cannot take them", layers.Describe(n.Layer()))
			}
			feeds = append(feeds, o)
		}
	}
	return feeds, nil
}

// hostFeeds runs the model's host stage on a batch of its inputs xs (in
// m.inputs's order, resolved) and returns the engine's inputs, in
// m.feeds's order. Without a host stage it returns xs.
func (m *Model) hostFeeds(xs []Array) ([]Array, error) {
	if len(m.onHost) == 0 {
		return xs, nil
	}
	vals := make(map[*layers.KerasTensor]Array, len(m.inputs)+len(m.nodes))
	inputs := make(map[*layers.KerasTensor]bool, len(m.inputs))
	for i, in := range m.inputs {
		vals[in] = xs[i]
		inputs[in] = true
	}
	for _, n := range m.nodes {
		if !m.onHost[n] {
			continue
		}
		ins := make([]Array, len(n.Inputs()))
		for i, t := range n.Inputs() {
			ins[i] = vals[t]
		}
		var out Array
		var err error
		if hl, ok := n.Layer().(layers.HostLayer); ok {
			out, err = hl.CallHost(ins)
		} else {
			out, err = n.Layer().(layers.HostComputable).HostCall(ins)
		}
		if err == nil {
			err = checkHostOutput(out, n)
		}
		if err != nil {
			return nil, fmt.Errorf("layer %s: %w", layers.Describe(n.Layer()), err)
		}
		vals[n] = out
	}
	feeds := make([]Array, len(m.feeds))
	for i, f := range m.feeds {
		a := vals[f]
		if inputs[f] {
			feeds[i] = a
			continue
		}
		if a.Ints != nil && f.DType() == backend.Float32 {
			// an engine layer's host form (HostComputable): its engine
			// readers take the engine's float values
			a = floatsOf(a)
		}
		if err := m.checkInputData(f, a, "its output"); err != nil {
			return nil, fmt.Errorf("layer %s: %w", layers.Describe(f.Layer()), err)
		}
		feeds[i] = a
	}
	return feeds, nil
}

// checkHostOutput checks a host layer's output against the shape the
// model was built with (a host layer's bug, not the data's).
func checkHostOutput(t Array, n *layers.KerasTensor) error {
	size := 1
	for _, d := range t.Shape {
		size *= d
	}
	if size != t.Len() || !fitsShape(t.Shape, n.Shape()) {
		return fmt.Errorf("made %d values of shape %v, but the model was built for %v", t.Len(), backend.Shape(t.Shape), n.Shape())
	}
	return nil
}

// floatsOf returns integer host data as float32 values of the same shape.
func floatsOf(a Array) Array {
	out := Array{Shape: a.Shape, Data: make([]float32, len(a.Ints))}
	for i, v := range a.Ints {
		out.Data[i] = float32(v)
	}
	return out
}
