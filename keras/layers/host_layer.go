package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// HostLayer is a layer that computes on the host, in front of the
// engine's graph: the layers that take strings (StringLookup,
// TextVectorization, Hashing) or look values up in a table
// (IntegerLookup), which Keras runs with TensorFlow inside tf.data. A
// model runs its host layers on each batch, in its loop, and feeds their
// outputs to the engine as inputs; no gradient flows through them.
//
// A host layer takes the model's inputs or other host layers' outputs;
// the model refuses one applied to an engine layer's output.
type HostLayer interface {
	Layer
	// OutputDType returns the dtype of the layer's output for inputs of
	// the given dtypes ("string", "int32", "int64" or "float32"), or an
	// error naming the dtype the layer takes.
	OutputDType(in []string) (string, error)
	// CallHost computes the layer's output from a batch of host data.
	// It does not change the layer and may run on several goroutines at
	// once.
	CallHost(in []HostTensor) (HostTensor, error)
}

// HostTensor is a batch of host data that a HostLayer or an Adapt reads
// or makes: its shape (samples first) and its values in row-major order,
// in exactly one of Strings, Ints and Floats.
type HostTensor struct {
	Shape   []int
	Strings []string
	Ints    []int64
	Floats  []float32
}

// DType returns the tensor's dtype: "string", "int64" or "float32".
func (t HostTensor) DType() string {
	switch {
	case t.Strings != nil:
		return "string"
	case t.Ints != nil:
		return "int64"
	}
	return "float32"
}

// Len returns the number of values the tensor holds.
func (t HostTensor) Len() int {
	switch {
	case t.Strings != nil:
		return len(t.Strings)
	case t.Ints != nil:
		return len(t.Ints)
	}
	return len(t.Floats)
}

// IsInteger reports whether a Keras dtype name is an integer one.
func IsInteger(dtype string) bool {
	switch dtype {
	case "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64":
		return true
	}
	return false
}

// hostCall is the engine Call of a host layer. A model computes its host
// layers before the engine runs and refuses them where the engine would
// have to (an engine layer's output, a nested model), so reaching it is
// a bug.
func hostCall(l Layer) backend.Value {
	panic(fmt.Sprintf("layer %s computes on the host, before the engine: the model should have run it there", Describe(l)))
}

// applyDType returns the Keras dtype of layer's output on inputs (""
// for an engine layer), or why the layer cannot take them: strings reach
// only host layers, and a host layer takes only the model's inputs and
// other host layers' outputs (it runs before the engine).
func applyDType(layer Layer, inputs []*KerasTensor) (string, error) {
	hl, host := layer.(HostLayer)
	dtypes := make([]string, len(inputs))
	for i, in := range inputs {
		dtypes[i] = in.dtype
		if !host && in.dtype == "string" {
			return "", fmt.Errorf("layer %s cannot take strings (input %d comes from %s): map them to numbers first with a TextVectorization, StringLookup or Hashing layer", Describe(layer), i, Describe(in.layer))
		}
		if host && in.dtype == "" {
			return "", fmt.Errorf("layer %s computes on the host, before the engine, so it takes a model input or another such layer's output, not the output of %s: apply it to the input (Keras too runs it in tf.data, before the model)", Describe(layer), Describe(in.layer))
		}
	}
	if !host {
		return "", nil
	}
	out, err := hl.OutputDType(dtypes)
	if err != nil {
		return "", fmt.Errorf("layer %s: %w", Describe(layer), err)
	}
	return out, nil
}
