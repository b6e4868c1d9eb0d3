package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// ActivityRegularization passes its input through and adds
// L1 * sum(|x|) + L2 * sum(x²), divided by the batch size, to the
// training loss, like keras.layers.ActivityRegularization (whose
// defaults are 0 for both). It keeps the input's mask. Its penalty is
// the layer's activity regularizer: Build sets Base.ActivityRegularizer
// to regularizers.L1L2{L1, L2}.
type ActivityRegularization struct {
	L1, L2 float64
	Base
}

// ClassName returns "ActivityRegularization".
func (*ActivityRegularization) ClassName() string { return "ActivityRegularization" }

// Build keeps the shape and sets the layer's activity regularizer.
func (l *ActivityRegularization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"l1", l.L1}, {"l2", l.L2}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return nil, fmt.Errorf("%s = %v: want a finite number >= 0", f.name, f.v)
		}
	}
	l.ActivityRegularizer = regularizers.L1L2{L1: l.L1, L2: l.L2}
	return in.Clone(), nil
}

// Call returns the input (the penalty is added by the model, as for
// every layer's activity regularizer).
func (l *ActivityRegularization) Call(_ *Context, in []backend.Value) backend.Value { return in[0] }

// ComputeMask passes the input's mask on.
func (*ActivityRegularization) ComputeMask(_ *Context, _, m []backend.Value) backend.Value {
	return firstMask(m)
}

// GetConfig returns Keras's config: l1 and l2.
func (l *ActivityRegularization) GetConfig() (serialization.Config, error) {
	return serialization.Config{"l1": serialization.Float(l.L1), "l2": serialization.Float(l.L2)}, nil
}

// ownsActivityRegularizer: the config has l1 and l2, not the regularizer
// (Keras's get_config pops activity_regularizer).
func (*ActivityRegularization) ownsActivityRegularizer() {}

func (*ActivityRegularization) withoutBuildConfig() {}

func init() {
	mustRegister("ActivityRegularization", func(r *serialization.Reader) (Layer, error) {
		return &ActivityRegularization{L1: r.Float("l1", 0), L2: r.Float("l2", 0)}, nil
	})
}

func (*ActivityRegularization) takesUnknownDims() {}
