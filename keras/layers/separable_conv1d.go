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

// SeparableConv1D is a depthwise convolution of sequences (batch, steps,
// channels) followed by a pointwise one mixing the channels, like
// keras.layers.SeparableConv1D. Weights: depthwise_kernel (size,
// channels, DepthMultiplier), pointwise_kernel (1,
// channels*DepthMultiplier, Filters), bias.
type SeparableConv1D struct {
	Filters         int    // required
	KernelSize      int    // required
	Strides         int    // default 1
	Padding         string // "valid" (default) or "same"
	DepthMultiplier int    // default 1
	DilationRate    int    // default 1; strides must then be 1
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

// ClassName returns "SeparableConv1D".
func (*SeparableConv1D) ClassName() string { return "SeparableConv1D" }

func (l *SeparableConv1D) windows() windows {
	return sequenceWindows(l.KernelSize, l.Strides, l.DilationRate, l.Padding)
}

// Build creates the kernels and bias.
func (l *SeparableConv1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if l.Filters <= 0 || l.DepthMultiplier < 0 || l.Strides < 0 || l.DilationRate < 0 {
		return nil, fmt.Errorf("filters, depth_multiplier, strides and dilation_rate must be positive, got %d, %d, %d and %d", l.Filters, l.DepthMultiplier, l.Strides, l.DilationRate)
	}
	w := l.windows()
	if w.dilation != [2]int{1, 1} && w.strides != [2]int{1, 1} {
		return nil, fmt.Errorf("dilation_rate %d needs strides of 1, as in Keras; got %d", l.DilationRate, l.Strides)
	}
	steps, err := w.sequence(in)
	if err != nil {
		return nil, err
	}
	if l.act, err = activations.Get(l.Activation); err != nil {
		return nil, err
	}
	mult := max(l.DepthMultiplier, 1)
	if l.depthwise, err = l.AddWeight("depthwise_kernel", backend.Shape{l.KernelSize, in[2], mult}, initializers.GlorotUniform{}); err != nil {
		return nil, err
	}
	if l.pointwise, err = l.AddWeight("pointwise_kernel", backend.Shape{1, in[2] * mult, l.Filters}, initializers.GlorotUniform{}); err != nil {
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
	return activations.OutputShape(l.Activation, backend.Shape{in[0], steps, l.Filters})
}

// Call convolves channel by channel, then mixes channels.
func (l *SeparableConv1D) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	y := ops.SeparableConv(b, in[0], ctx.Weight(l.depthwise), ctx.Weight(l.pointwise), l.windows().sequenceOptions())
	if l.bias != nil {
		y = b.Add(y, ctx.Weight(l.bias))
	}
	return l.act(b, y)
}

// GetConfig returns Keras's config.
func (l *SeparableConv1D) GetConfig() (serialization.Config, error) {
	w := l.windows()
	cfg := serialization.Config{
		"filters": l.Filters, "kernel_size": w.size[1:], "strides": w.strides[1:], "padding": string(w.padding),
		"depth_multiplier": max(l.DepthMultiplier, 1), "data_format": "channels_last", "dilation_rate": w.dilation[1:],
		"activation": activationName(l.Activation), "use_bias": !l.NoBias,
		"depthwise_initializer": initializerObject("glorot_uniform"), "pointwise_initializer": initializerObject("glorot_uniform"),
		"bias_initializer": initializerObject("zeros"), "activity_regularizer": nil,
	}
	return cfg, penaltiesConfig(cfg,
		map[string]regularizers.Regularizer{"depthwise": l.DepthwiseRegularizer, "pointwise": l.PointwiseRegularizer, "bias": l.BiasRegularizer},
		map[string]constraints.Constraint{"depthwise": l.DepthwiseConstraint, "pointwise": l.PointwiseConstraint, "bias": l.BiasConstraint})
}

func init() {
	mustRegister("SeparableConv1D", func(r *serialization.Reader) (Layer, error) {
		r.NotNull("kernel_size", "strides", "padding", "dilation_rate")
		l := &SeparableConv1D{Filters: r.PositiveInt("filters", 0), KernelSize: readPositiveOne(r, "kernel_size", 0), Strides: readPositiveOne(r, "strides", 1),
			Padding: r.String("padding", "valid"), DepthMultiplier: r.Int("depth_multiplier", 1), DilationRate: readPositiveOne(r, "dilation_rate", 1),
			Activation: readActivation(r, "activation"), NoBias: !r.Bool("use_bias", true)}
		readDepthwiseCommon(r, "depthwise", "pointwise")
		l.DepthwiseRegularizer, l.PointwiseRegularizer = readRegularizer(r, "depthwise_regularizer"), readRegularizer(r, "pointwise_regularizer")
		l.BiasRegularizer = readRegularizer(r, "bias_regularizer")
		l.DepthwiseConstraint, l.PointwiseConstraint = readConstraint(r, "depthwise_constraint"), readConstraint(r, "pointwise_constraint")
		l.BiasConstraint = readConstraint(r, "bias_constraint")
		return l, nil
	})
}
