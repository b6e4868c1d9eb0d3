package regularizers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// L2 penalises L2 * sum(x²), like keras.regularizers.L2. A zero L2 is
// Keras's default, 0.01.
type L2 struct {
	L2 float64
}

// ClassName returns "L2".
func (L2) ClassName() string { return "L2" }

// Penalty returns L2 * sum(x²).
func (r L2) Penalty(b backend.Builder, x backend.Value) backend.Value {
	return b.Mul(b.Scalar(orDefault(r.L2)), b.Sum(b.Square(x)))
}

// Config returns {"l2": L2}.
func (r L2) Config() serialization.Config { return serialization.Config{"l2": orDefault(r.L2)} }

// Check refuses a negative or non-finite factor.
func (r L2) Check() error { return checkFactor("L2", "l2", r.L2) }
