package constraints

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// UnitNorm rescales the weights to norm 1 over Axis, like
// keras.constraints.UnitNorm: w / (epsilon + ||w||). No Axis is axis 0.
type UnitNorm struct {
	Axis []int
}

// ClassName returns "UnitNorm".
func (UnitNorm) ClassName() string { return "UnitNorm" }

// Apply returns w / (epsilon + ||w||).
func (c UnitNorm) Apply(b backend.Builder, w backend.Value) backend.Value {
	return b.Div(w, b.Add(b.Scalar(epsilon), norms(b, w, c.Axis)))
}

// Config returns {"axis": Axis}.
func (c UnitNorm) Config() serialization.Config {
	return serialization.Config{"axis": axisConfig(c.Axis)}
}

// CheckShape refuses an axis out of range.
func (c UnitNorm) CheckShape(s backend.Shape) error {
	_, err := axes("UnitNorm", c.Axis, len(s))
	return err
}
