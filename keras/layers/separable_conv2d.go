package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// SeparableConv2D is a depthwise convolution followed by a 1x1
// convolution mixing the channels, like keras.layers.SeparableConv2D.
// Weights: depthwise_kernel (rows, cols, channels, DepthMultiplier),
// pointwise_kernel (1, 1, channels*DepthMultiplier, Filters), bias.
type SeparableConv2D struct {
	Filters         int    // required
	KernelSize      [2]int // required
	Strides         [2]int // default (1, 1)
	Padding         string // "valid" (default) or "same"
	DepthMultiplier int    // default 1
	DilationRate    [2]int // default (1, 1)
	Activation      string
	NoBias          bool
	// The kernels' and the bias's regularizers and constraints (Keras's
	// depthwise_regularizer, pointwise_regularizer, ...).
	DepthwiseRegularizer, PointwiseRegularizer, BiasRegularizer regularizers.Regularizer
	DepthwiseConstraint, PointwiseConstraint, BiasConstraint    constraints.Constraint
	Base

	depthwise, pointwise, bias *Weight
	act                        activations.Func
}

// ClassName returns "SeparableConv2D".
func (*SeparableConv2D) ClassName() string { return "SeparableConv2D" }

func (l *SeparableConv2D) windows() windows {
	return convWindows(l.KernelSize, l.Strides, l.DilationRate, l.Padding)
}

// Build creates the kernels and bias.
func (l *SeparableConv2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if l.Filters <= 0 || l.DepthMultiplier < 0 {
		return nil, fmt.Errorf("filters and depth_multiplier must be positive, got %d and %d", l.Filters, l.DepthMultiplier)
	}
	w := l.windows()
	rows, cols, err := w.image(in)
	if err != nil {
		return nil, err
	}
	if l.act, err = activations.Get(l.Activation); err != nil {
		return nil, err
	}
	mult := max(l.DepthMultiplier, 1)
	if l.depthwise, err = l.AddWeight("depthwise_kernel", backend.Shape{w.size[0], w.size[1], in[3], mult}, initializers.GlorotUniform{}); err != nil {
		return nil, err
	}
	if l.pointwise, err = l.AddWeight("pointwise_kernel", backend.Shape{1, 1, in[3] * mult, l.Filters}, initializers.GlorotUniform{}); err != nil {
		return nil, err
	}
	if err := regularize(l.depthwise, "depthwise", l.DepthwiseRegularizer, l.DepthwiseConstraint); err != nil {
		return nil, err
	}
	if err := regularize(l.pointwise, "pointwise", l.PointwiseRegularizer, l.PointwiseConstraint); err != nil {
		return nil, err
	}
	if l.bias, err = l.addBias(l.Filters, l.NoBias, l.BiasRegularizer, l.BiasConstraint); err != nil {
		return nil, err
	}
	return activations.OutputShape(l.Activation, backend.Shape{in[0], rows, cols, l.Filters})
}

// Call convolves channel by channel, then mixes channels.
func (l *SeparableConv2D) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	y := ops.SeparableConv(b, in[0], ctx.Weight(l.depthwise), ctx.Weight(l.pointwise), l.windows().convOptions())
	if l.bias != nil {
		y = b.Add(y, ctx.Weight(l.bias))
	}
	return l.act(b, y)
}

// GetConfig returns Keras's config.
func (l *SeparableConv2D) GetConfig() (serialization.Config, error) {
	w := l.windows()
	cfg := serialization.Config{
		"filters": l.Filters, "kernel_size": w.size[:], "strides": w.strides[:], "padding": string(w.padding),
		"depth_multiplier": max(l.DepthMultiplier, 1), "data_format": "channels_last", "dilation_rate": w.dilation[:],
		"activation": activationName(l.Activation), "use_bias": !l.NoBias,
		"depthwise_initializer": initializerObject("glorot_uniform"), "pointwise_initializer": initializerObject("glorot_uniform"),
		"bias_initializer": initializerObject("zeros"), "activity_regularizer": nil,
	}
	return cfg, penaltiesConfig(cfg,
		map[string]regularizers.Regularizer{"depthwise": l.DepthwiseRegularizer, "pointwise": l.PointwiseRegularizer, "bias": l.BiasRegularizer},
		map[string]constraints.Constraint{"depthwise": l.DepthwiseConstraint, "pointwise": l.PointwiseConstraint, "bias": l.BiasConstraint})
}

func init() {
	mustRegister("SeparableConv2D", func(r *serialization.Reader) (Layer, error) {
		r.NotNull("kernel_size", "strides", "padding", "dilation_rate")
		l := &SeparableConv2D{Filters: r.PositiveInt("filters", 0), KernelSize: r.PositivePair("kernel_size", [2]int{}), Strides: r.PositivePair("strides", [2]int{1, 1}),
			Padding: r.String("padding", "valid"), DepthMultiplier: r.Int("depth_multiplier", 1), DilationRate: r.PositivePair("dilation_rate", [2]int{1, 1}),
			Activation: readActivation(r, "activation"), NoBias: !r.Bool("use_bias", true)}
		readDepthwiseCommon(r, "depthwise", "pointwise")
		l.DepthwiseRegularizer, l.PointwiseRegularizer = readRegularizer(r, "depthwise_regularizer"), readRegularizer(r, "pointwise_regularizer")
		l.BiasRegularizer = readRegularizer(r, "bias_regularizer")
		l.DepthwiseConstraint, l.PointwiseConstraint = readConstraint(r, "depthwise_constraint"), readConstraint(r, "pointwise_constraint")
		l.BiasConstraint = readConstraint(r, "bias_constraint")
		return l, nil
	})
}
