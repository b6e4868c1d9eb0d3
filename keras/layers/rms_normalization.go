package layers

import (
	"slices"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RMSNormalization is keras.layers.RMSNormalization (Zhang and Sennrich,
// 2019): each sample divided by its root mean square over Axis (nil: the
// last axis), x / sqrt(mean(x²) + Epsilon), times a learned scale (one
// per element of those axes, starting at 1). Unlike LayerNormalization it
// neither centres nor shifts. Epsilon 0 stands for Keras's 1e-6.
type RMSNormalization struct {
	Axis    []int
	Epsilon float64
	Base

	axes  []int
	scale *Weight
}

// ClassName returns "RMSNormalization".
func (*RMSNormalization) ClassName() string { return "RMSNormalization" }

func (l *RMSNormalization) epsilon() float64 {
	if l.Epsilon == 0 {
		return 1e-6
	}
	return l.Epsilon
}

// Build creates the scale, shaped as the input's axes it normalises over.
func (l *RMSNormalization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if l.axes, err = normalizationAxes("RMSNormalization", l.Axis, in); err != nil {
		return nil, err
	}
	slices.Sort(l.axes) // the scale's axes in the input's order, as Keras sorts them
	shape := make(backend.Shape, len(l.axes))
	for i, a := range l.axes {
		shape[i] = in[a]
	}
	if l.scale, err = l.AddWeight("scale", shape, initializers.Constant{Value: 1}); err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// castsInputs makes the layer compute in float32 under a
// reduced-precision policy, rounding only its outputs, as Keras's does;
// Keras casts its float inputs to the compute dtype first (autocast=True).
func (l *RMSNormalization) castsInputs() bool { return true }

// Call normalises and scales.
func (l *RMSNormalization) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	axes := l.axes
	meanSquare := ops.Mean(b, b.Square(x), ops.Axis(axes...), ops.KeepDims())
	y := b.Mul(x, ops.Rsqrt(b, b.Add(meanSquare, b.Scalar(l.epsilon()))))
	shape := make(backend.Shape, len(x.Shape())) // the scale, broadcast over the other axes
	for i := range shape {
		shape[i] = 1
	}
	for _, a := range axes {
		shape[a] = x.Shape()[a]
	}
	// Keras reads the scale, an autocast variable, in the compute dtype.
	scale := roundedToPolicy(ctx, l, ctx.Weight(l.scale))
	return b.Mul(y, b.Reshape(scale, shape))
}

// GetConfig returns Keras's config.
func (l *RMSNormalization) GetConfig() (serialization.Config, error) {
	return serialization.Config{"axis": axesConfig(l.Axis, len(l.Axis) > 1), "epsilon": l.epsilon()}, nil
}

func init() {
	mustRegister("RMSNormalization", func(r *serialization.Reader) (Layer, error) {
		axes, _ := readAxes(r, "axis")
		return &RMSNormalization{Axis: axes, Epsilon: r.Float("epsilon", 1e-6)}, nil
	})
}
