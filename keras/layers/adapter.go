package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Adapter is a preprocessing layer whose state is computed from data
// before training, Keras's layer.adapt: Normalization's mean and
// variance, Discretization's bin boundaries. keras.Adapt feeds it an
// array or a dataset's batches.
type Adapter interface {
	Layer
	// StartAdapt begins computing the layer's state from data whose
	// samples have the shape sample (without the batch axis), building
	// the layer for that shape if it is not built yet.
	StartAdapt(sample backend.Shape) (Adaptation, error)
}

// Adaptation accumulates one Adapt call's data. Its methods are called
// from one goroutine; the layer's state changes only in Finish.
type Adaptation interface {
	// Update takes one batch (samples first, then the sample shape
	// given to StartAdapt).
	Update(batch backend.Array) error
	// Finish sets the layer's state from every batch given to Update
	// (at least one).
	Finish() error
}

// numbers returns a batch's values as floats, for the layers that adapt
// on numbers (integers converted).
func numbers(t backend.Array, layer Layer) ([]float32, error) {
	switch {
	case t.Strings != nil:
		return nil, fmt.Errorf("%s adapts on numbers, not strings", Describe(layer))
	case t.Ints != nil:
		out := make([]float32, len(t.Ints))
		for i, v := range t.Ints {
			out[i] = float32(v)
		}
		return out, nil
	}
	return t.Data, nil
}
