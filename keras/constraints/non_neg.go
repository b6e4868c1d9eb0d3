package constraints

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// NonNeg sets negative weights to zero, like keras.constraints.NonNeg:
// max(w, 0).
type NonNeg struct{}

// ClassName returns "NonNeg".
func (NonNeg) ClassName() string { return "NonNeg" }

// Apply returns max(w, 0).
func (NonNeg) Apply(b backend.Builder, w backend.Value) backend.Value {
	return b.Maximum(w, b.Scalar(0))
}

// Config returns {} (NonNeg has no settings).
func (NonNeg) Config() serialization.Config { return serialization.Config{} }

// CheckShape accepts every shape.
func (NonNeg) CheckShape(backend.Shape) error { return nil }
