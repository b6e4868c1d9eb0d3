package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// The activation layers of keras/src/layers/activations: ReLU, LeakyReLU,
// PReLU, ELU and Softmax. They keep the input's shape.

// sameShape is the Build of a layer that keeps its input's shape.
func sameShape(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

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

// LeakyReLU is keras.layers.LeakyReLU: x for x >= 0, NegativeSlope*x
// below.
type LeakyReLU struct {
	// NegativeSlope defaults to Keras's 0.3 (note: the "leaky_relu"
	// activation's default is 0.2, as in Keras).
	NegativeSlope float64
	Base
}

// ClassName returns "LeakyReLU".
func (*LeakyReLU) ClassName() string { return "LeakyReLU" }

func (l *LeakyReLU) slope() float64 {
	if l.NegativeSlope == 0 {
		return 0.3
	}
	return l.NegativeSlope
}

// Build checks the slope; the shape is unchanged.
func (l *LeakyReLU) Build(inputs []backend.Shape) (backend.Shape, error) {
	if l.slope() < 0 {
		return nil, fmt.Errorf("negative_slope must be >= 0, got %v", l.NegativeSlope)
	}
	return sameShape(inputs)
}

// Call computes relu(x) - slope*relu(-x).
func (l *LeakyReLU) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	return b.Sub(b.Relu(x), b.Mul(b.Relu(b.Neg(x)), b.Scalar(l.slope())))
}

// GetConfig returns Keras's config.
func (l *LeakyReLU) GetConfig() (serialization.Config, error) {
	return serialization.Config{"negative_slope": l.slope()}, nil
}

// PReLU is keras.layers.PReLU: LeakyReLU with a learned slope per input
// element (alpha, initialised to 0), shared along SharedAxes (e.g. {1, 2}
// for one slope per channel of an image).
type PReLU struct {
	SharedAxes []int // axes (batch = 0) along which alpha is shared
	Base

	alpha *Weight
}

// ClassName returns "PReLU".
func (*PReLU) ClassName() string { return "PReLU" }

// Build creates alpha, of the input's shape without the batch, 1 along
// the shared axes.
func (l *PReLU) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	s := in[1:].Clone()
	for _, a := range l.SharedAxes {
		if a < 1 || a >= len(in) {
			return nil, fmt.Errorf("shared axis %d is out of range for input %v (axes count from 1 after the batch)", a, in)
		}
		s[a-1] = 1
	}
	if l.alpha, err = l.AddWeight("alpha", s, initializers.Constant{}); err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// Call computes relu(x) - alpha*relu(-x).
func (l *PReLU) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	return b.Sub(b.Relu(x), b.Mul(b.Relu(b.Neg(x)), ctx.Weight(l.alpha)))
}

// GetConfig returns Keras's config.
func (l *PReLU) GetConfig() (serialization.Config, error) {
	var shared any
	if len(l.SharedAxes) > 0 {
		list := make([]any, len(l.SharedAxes))
		for i, a := range l.SharedAxes {
			list[i] = a
		}
		shared = list
	}
	return serialization.Config{"alpha_initializer": initializerObject("zeros"), "alpha_regularizer": nil, "alpha_constraint": nil, "shared_axes": shared}, nil
}

// ELU is keras.layers.ELU: x for x > 0, Alpha*(exp(x) - 1) below.
type ELU struct {
	Alpha float64 // default 1
	Base
}

// ClassName returns "ELU".
func (*ELU) ClassName() string { return "ELU" }

func (l *ELU) alpha() float64 {
	if l.Alpha == 0 {
		return 1
	}
	return l.Alpha
}

// Build keeps the shape.
func (l *ELU) Build(inputs []backend.Shape) (backend.Shape, error) { return sameShape(inputs) }

// Call applies elu.
func (l *ELU) Call(ctx *Context, in []backend.Value) backend.Value {
	return activations.ELU(ctx.B, in[0], l.alpha())
}

// GetConfig returns Keras's config.
func (l *ELU) GetConfig() (serialization.Config, error) {
	return serialization.Config{"alpha": l.alpha()}, nil
}

// Softmax is keras.layers.Softmax over the last axis.
type Softmax struct {
	Base
}

// ClassName returns "Softmax".
func (*Softmax) ClassName() string { return "Softmax" }

// Build keeps the shape.
func (l *Softmax) Build(inputs []backend.Shape) (backend.Shape, error) { return sameShape(inputs) }

// Call applies softmax over the last axis.
func (l *Softmax) Call(ctx *Context, in []backend.Value) backend.Value { return ctx.B.Softmax(in[0]) }

// GetConfig returns Keras's config.
func (l *Softmax) GetConfig() (serialization.Config, error) {
	return serialization.Config{"axis": -1}, nil
}

func (*ReLU) withoutBuildConfig()      {}
func (*LeakyReLU) withoutBuildConfig() {}
func (*ELU) withoutBuildConfig()       {}
func (*Softmax) withoutBuildConfig()   {}

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
	mustRegister("LeakyReLU", func(r *serialization.Reader) (Layer, error) {
		slope := r.Float("negative_slope", 0.3)
		if r.Has("alpha") { // Keras 2's name
			slope = r.Float("alpha", 0.3)
		}
		if slope == 0 {
			return &ReLU{}, nil
		}
		return &LeakyReLU{NegativeSlope: slope}, nil
	})
	mustRegister("PReLU", func(r *serialization.Reader) (Layer, error) {
		if got := readInitializer(r, "alpha_initializer"); got != "" && got != "zeros" {
			r.Fail("alpha_initializer", "%s is not supported by kerasgo (only zeros)", got)
		}
		r.ExpectNull("alpha_regularizer")
		r.ExpectNull("alpha_constraint")
		return &PReLU{SharedAxes: r.Ints("shared_axes")}, nil
	})
	mustRegister("ELU", func(r *serialization.Reader) (Layer, error) {
		a := r.Float("alpha", 1)
		if a == 0 || math.IsNaN(a) {
			r.Fail("alpha", "an alpha of %v is not supported by kerasgo", a)
		}
		return &ELU{Alpha: a}, nil
	})
	mustRegister("Softmax", func(r *serialization.Reader) (Layer, error) {
		if axis, ok := r.Value("axis"); ok {
			if f, isNum := axis.(float64); !isNum || f != -1 {
				r.Fail("axis", "kerasgo's Softmax layer works over the last axis only (axis=-1), got %v", axis)
			}
		}
		return &Softmax{}, nil
	})
}
