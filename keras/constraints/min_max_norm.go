package constraints

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// MinMaxNorm moves the norm n of the weights over Axis towards
// [MinValue, MaxValue], like keras.constraints.MinMaxNorm:
// w * (Rate * clip(n, MinValue, MaxValue) + (1 - Rate) * n) / (epsilon + n).
// Zero values are Keras's defaults for MaxValue (1) and Rate (1, strict);
// MinValue's default is 0; no Axis is axis 0.
type MinMaxNorm struct {
	MinValue, MaxValue, Rate float64
	Axis                     []int
}

// ClassName returns "MinMaxNorm".
func (MinMaxNorm) ClassName() string { return "MinMaxNorm" }

func (c MinMaxNorm) resolved() MinMaxNorm {
	if c.MaxValue == 0 {
		c.MaxValue = 1
	}
	if c.Rate == 0 {
		c.Rate = 1
	}
	return c
}

// Apply returns the constrained w.
func (c MinMaxNorm) Apply(b backend.Builder, w backend.Value) backend.Value {
	c = c.resolved()
	n := norms(b, w, c.Axis)
	desired := b.Add(b.Mul(b.Scalar(c.Rate), clip(b, n, c.MinValue, c.MaxValue)), b.Mul(b.Scalar(1-c.Rate), n))
	return rescale(b, w, desired, n)
}

// Config returns {"min_value", "max_value", "rate", "axis"}.
func (c MinMaxNorm) Config() serialization.Config {
	c = c.resolved()
	return serialization.Config{"min_value": serialization.Float(c.MinValue), "max_value": serialization.Float(c.MaxValue),
		"rate": serialization.Float(c.Rate), "axis": axisConfig(c.Axis)}
}

// CheckShape refuses non-finite settings, MinValue above MaxValue and an
// axis out of range.
func (c MinMaxNorm) CheckShape(s backend.Shape) error {
	c = c.resolved()
	for _, v := range []struct {
		name string
		v    float64
	}{{"min_value", c.MinValue}, {"max_value", c.MaxValue}, {"rate", c.Rate}} {
		if err := checkValue("MinMaxNorm", v.name, v.v); err != nil {
			return err
		}
	}
	if c.MinValue < 0 || c.MinValue > c.MaxValue {
		return fmt.Errorf("constraint MinMaxNorm: min_value %v and max_value %v: want 0 <= min_value <= max_value", c.MinValue, c.MaxValue)
	}
	_, err := axes("MinMaxNorm", c.Axis, len(s))
	return err
}
