package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// ReLU is keras.layers.ReLU: x between Threshold and MaxValue,
// NegativeSlope*(x - Threshold) below Threshold, MaxValue above it.
type ReLU struct {
	MaxValue      float64 // 0 means none (Keras's None)
	NegativeSlope float64 // default 0
	Threshold     float64 // default 0
	Base
}

// ClassName returns "ReLU".
func (*ReLU) ClassName() string { return "ReLU" }

// Build checks the settings; the shape is unchanged.
func (l *ReLU) Build(inputs []backend.Shape) (backend.Shape, error) {
	if l.MaxValue < 0 || l.NegativeSlope < 0 {
		return nil, fmt.Errorf("max_value and negative_slope must be >= 0, got %v and %v", l.MaxValue, l.NegativeSlope)
	}
	return sameShape(inputs)
}

// Call follows Keras 3's ReLU.static_call.
func (l *ReLU) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	var negative backend.Value
	if l.NegativeSlope != 0 {
		negative = b.Relu(b.Sub(b.Scalar(l.Threshold), x))
	}
	var y backend.Value
	if l.Threshold != 0 {
		y = b.Mul(x, b.Greater(x, b.Scalar(l.Threshold)))
	} else {
		y = b.Relu(x)
	}
	if l.MaxValue > 0 {
		y = b.Minimum(b.Maximum(y, b.Scalar(0)), b.Scalar(l.MaxValue))
	}
	if negative != nil {
		y = b.Sub(y, b.Mul(negative, b.Scalar(l.NegativeSlope)))
	}
	return y
}

// GetConfig returns Keras's config.
func (l *ReLU) GetConfig() (serialization.Config, error) {
	var maxValue any
	if l.MaxValue > 0 {
		maxValue = l.MaxValue
	}
	return serialization.Config{"max_value": maxValue, "negative_slope": l.NegativeSlope, "threshold": l.Threshold}, nil
}

func (*ReLU) withoutBuildConfig() {}

func init() {
	mustRegister("ReLU", func(r *serialization.Reader) (Layer, error) {
		l := &ReLU{NegativeSlope: r.Float("negative_slope", 0), Threshold: r.Float("threshold", 0)}
		if v, ok := r.Value("max_value"); ok && v != nil {
			l.MaxValue = r.Float("max_value", 0)
			if l.MaxValue == 0 {
				r.Fail("max_value", "0 clips everything to 0: kerasgo reads 0 as no limit, so it cannot load it")
			}
		}
		return l, nil
	})
}

func (*ReLU) takesUnknownDims() {}
