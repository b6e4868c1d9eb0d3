package constraints

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// MaxNorm rescales the weights whose norm over Axis exceeds MaxValue to
// that norm, like keras.constraints.MaxNorm:
// w * clip(n, 0, MaxValue) / (epsilon + n), n = ||w|| over Axis. A zero
// MaxValue is Keras's default, 2; no Axis is axis 0.
type MaxNorm struct {
	MaxValue float64
	Axis     []int
}

// ClassName returns "MaxNorm".
func (MaxNorm) ClassName() string { return "MaxNorm" }

func (c MaxNorm) max() float64 {
	if c.MaxValue == 0 {
		return 2
	}
	return c.MaxValue
}

// Apply returns the constrained w.
func (c MaxNorm) Apply(b backend.Builder, w backend.Value) backend.Value {
	n := norms(b, w, c.Axis)
	return rescale(b, w, clip(b, n, 0, c.max()), n)
}

// Config returns {"max_value": MaxValue, "axis": Axis}.
func (c MaxNorm) Config() serialization.Config {
	return serialization.Config{"max_value": c.max(), "axis": axisConfig(c.Axis)}
}

// CheckShape refuses a negative or non-finite MaxValue and an axis out of range.
func (c MaxNorm) CheckShape(s backend.Shape) error {
	if err := checkValue("MaxNorm", "max_value", c.MaxValue); err != nil {
		return err
	}
	if c.MaxValue < 0 {
		return fmt.Errorf("constraint MaxNorm: max_value = %v: want a number > 0", c.MaxValue)
	}
	_, err := axes("MaxNorm", c.Axis, len(s))
	return err
}
