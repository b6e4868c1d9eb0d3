package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// HostLayer is a layer that computes on the host, in front of the
// engine's graph: the layers that take strings (StringLookup,
// TextVectorization, Hashing, HashedCrossing) or look values up in a table
// (IntegerLookup), which Keras runs with TensorFlow inside tf.data. A
// model runs its host layers on each batch, in its loop, and feeds their
// outputs to the engine as inputs; no gradient flows through them.
//
// A host layer takes the model's inputs or other host layers' outputs;
// the model refuses one applied to an engine layer's output.
type HostLayer interface {
	Layer
	// OutputDType returns the dtype of the layer's output for inputs of
	// the given dtypes (String, Int32, Int64 or Float32), or an error
	// naming the dtype the layer takes.
	OutputDType(in []backend.DType) (backend.DType, error)
	// CallHost computes the layer's output from a batch of host data
	// (integers come as Ints, int32). It does not change the layer and
	// may run on several goroutines at once.
	CallHost(in []backend.Array) (backend.Array, error)
}

// The layers that compute on the host.
var (
	_ HostLayer = (*Hashing)(nil)
	_ HostLayer = (*HashedCrossing)(nil)
	_ HostLayer = (*IntegerLookup)(nil)
	_ HostLayer = (*StringLookup)(nil)
	_ HostLayer = (*TextVectorization)(nil)
)

// HostComputable is an engine layer that also has a host form, as Keras
// runs its preprocessing layers in tf.data: Discretization. Applied to
// host data (model inputs, host layers' outputs), its output may feed a
// host layer (a HashedCrossing of a discretized feature, as FeatureSpace
// crosses them); a model then runs that call on the host, before the
// engine, and its engine readers take the output as an input. Elsewhere
// the engine runs it (Call), and its output is the engine's.
type HostComputable interface {
	Layer
	// HostOutputDType returns the dtype of the host form's output for
	// inputs of the given dtypes, or an error when the layer's settings
	// have no host form.
	HostOutputDType(in []backend.DType) (backend.DType, error)
	// HostCall computes the host form's output from a batch of host
	// data, as a host layer's CallHost does.
	HostCall(in []backend.Array) (backend.Array, error)
}

// int32IDs returns ids (lookup indices, hash bins, int64 as Keras gives
// them) as the host array's Int32, the engine's integer type, or an
// error naming a value that does not fit.
func int32IDs(ids []int64) ([]int32, error) {
	out := make([]int32, len(ids))
	for i, v := range ids {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, fmt.Errorf("value %d (%d) does not fit kerasgo's int32 integers", i, v)
		}
		out[i] = int32(v)
	}
	return out, nil
}

// int64s widens a host array's integers to the int64 keys lookups use.
func int64s(ints []int32) []int64 {
	out := make([]int64, len(ints))
	for i, v := range ints {
		out[i] = int64(v)
	}
	return out
}

// hostCall is the engine Call of a host layer. A model computes its host
// layers before the engine runs and refuses them where the engine would
// have to (an engine layer's output, a nested model), so reaching it is
// a bug.
func hostCall(l Layer) backend.Value {
	panic(fmt.Sprintf("layer %s computes on the host, before the engine: the model should have run it there", Describe(l)))
}

// applyDType returns the dtype of layer's output on inputs and whether
// it is known on the host (a host layer's), or why the layer cannot take
// them: strings reach only host layers, and a host layer takes only the
// model's inputs and other host layers' outputs (it runs before the
// engine).
//
// It also returns the dtype of an engine layer's host form
// (HostComputable) when all its inputs are host data, with hostForm set.
func applyDType(layer Layer, inputs []*KerasTensor) (dtype backend.DType, onHost bool, hostDType backend.DType, hostForm bool, err error) {
	hl, host := layer.(HostLayer)
	dtypes := make([]backend.DType, len(inputs))
	allOnHost := true
	for i, in := range inputs {
		dtypes[i] = in.dtype
		if host && in.hostForm {
			dtypes[i] = in.hostDType
		}
		allOnHost = allOnHost && in.onHost
		if !host && in.dtype == backend.String {
			return 0, false, 0, false, fmt.Errorf("layer %s cannot take strings (input %d comes from %s): map them to numbers first with a TextVectorization, StringLookup or Hashing layer", Describe(layer), i, Describe(in.layer))
		}
		if host && !in.onHost && !in.hostForm {
			return 0, false, 0, false, fmt.Errorf("layer %s computes on the host, before the engine, so it takes a model input or another such layer's output, not the output of %s: apply it to the input (Keras too runs it in tf.data, before the model)", Describe(layer), Describe(in.layer))
		}
	}
	if !host {
		if hc, ok := layer.(HostComputable); ok && allOnHost {
			if hd, err := hc.HostOutputDType(dtypes); err == nil {
				return backend.Float32, false, hd, true, nil
			}
		}
		return backend.Float32, false, 0, false, nil
	}
	out, err := hl.OutputDType(dtypes)
	if err != nil {
		return 0, false, 0, false, fmt.Errorf("layer %s: %w", Describe(layer), err)
	}
	return out, true, 0, false, nil
}
