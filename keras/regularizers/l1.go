package regularizers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// L1 penalises L1 * sum(|x|), like keras.regularizers.L1. A zero L1 is
// Keras's default, 0.01.
type L1 struct {
	L1 float64
}

// ClassName returns "L1".
func (L1) ClassName() string { return "L1" }

// Penalty returns L1 * sum(|x|).
func (r L1) Penalty(b backend.Builder, x backend.Value) backend.Value {
	return b.Mul(b.Scalar(orDefault(r.L1)), b.Sum(abs(b, x)))
}

// Config returns {"l1": L1}.
func (r L1) Config() serialization.Config { return serialization.Config{"l1": orDefault(r.L1)} }

// Check refuses a negative or non-finite factor.
func (r L1) Check() error { return checkFactor("L1", "l1", r.L1) }
