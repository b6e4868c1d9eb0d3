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

// DepthwiseConv1D convolves each channel of sequences (batch, steps,
// channels) with its own kernels, like keras.layers.DepthwiseConv1D:
// DepthMultiplier output channels per input channel (channel c's m-th at
// c*DepthMultiplier + m). The kernel has Keras's shape (size, channels,
// DepthMultiplier).
type DepthwiseConv1D struct {
	KernelSize      int    // required
	Strides         int    // default 1
	Padding         string // "valid" (default) or "same"
	DepthMultiplier int    // default 1
	DilationRate    int    // default 1; strides must then be 1
	Activation      string
	NoBias          bool
	// DepthwiseRegularizer and BiasRegularizer add penalties of the
	// kernel and the bias to the loss; DepthwiseConstraint and
	// BiasConstraint project them after each update (Keras's
	// depthwise_regularizer, ...).
	DepthwiseRegularizer, BiasRegularizer regularizers.Regularizer
	DepthwiseConstraint, BiasConstraint   constraints.Constraint
	Base

	kernel, bias *Weight
	act          activations.Func
}

// ClassName returns "DepthwiseConv1D".
func (*DepthwiseConv1D) ClassName() string { return "DepthwiseConv1D" }

func (l *DepthwiseConv1D) multiplier() int { return max(l.DepthMultiplier, 1) }

// windows is the convolution as windows over a one-row image.
func (l *DepthwiseConv1D) windows() windows {
	return sequenceWindows(l.KernelSize, l.Strides, l.DilationRate, l.Padding)
}

// sequenceWindows are a 1-D convolution's windows over a (batch, 1,
// steps, channels) image, Keras's defaults filled in.
func sequenceWindows(size, strides, dilation int, padding string) windows {
	return convWindows([2]int{1, size}, [2]int{1, oneOr1(strides)}, [2]int{1, oneOr1(dilation)}, padding)
}

// sequence checks that in is (batch, steps, channels) and that the
// windows fit, and returns the output's steps.
func (w windows) sequence(in backend.Shape) (int, error) {
	if len(in) != 3 || in[2] <= 0 {
		return 0, fmt.Errorf("expected an input of shape (batch, steps, channels), received %v", in)
	}
	_, steps, err := w.image(backend.Shape{in[0], 1, in[1], in[2]})
	return steps, err
}

// sequenceOptions are the windows of a one-row image as ops' options
// for sequences.
func (w windows) sequenceOptions() ops.ConvOptions {
	return ops.ConvOptions{Strides: w.strides[1:], Padding: w.padding, DilationRate: w.dilation[1:]}
}

// Build creates the depthwise kernel and bias.
func (l *DepthwiseConv1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if l.DepthMultiplier < 0 || l.Strides < 0 || l.DilationRate < 0 {
		return nil, fmt.Errorf("depth_multiplier, strides and dilation_rate must be positive, got %d, %d and %d", l.DepthMultiplier, l.Strides, l.DilationRate)
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
	out := in[2] * l.multiplier()
	if l.kernel, err = l.AddWeight("kernel", backend.Shape{l.KernelSize, in[2], l.multiplier()}, initializers.GlorotUniform{}); err != nil {
		return nil, err
	}
	if err := regularize(l.kernel, "depthwise", l.DepthwiseRegularizer, l.DepthwiseConstraint); err != nil {
		return nil, err
	}
	if l.bias, err = l.addBias(out, l.NoBias, l.BiasRegularizer, l.BiasConstraint); err != nil {
		return nil, err
	}
	return activations.OutputShape(l.Activation, backend.Shape{in[0], steps, out})
}

// Call convolves channel by channel, adds the bias and activates.
func (l *DepthwiseConv1D) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	y := ops.DepthwiseConv(b, in[0], ctx.Weight(l.kernel), l.windows().sequenceOptions())
	if l.bias != nil {
		y = b.Add(y, ctx.Weight(l.bias))
	}
	return l.act(b, y)
}

// GetConfig returns Keras's config.
func (l *DepthwiseConv1D) GetConfig() (serialization.Config, error) {
	w := l.windows()
	cfg := serialization.Config{
		"kernel_size": w.size[1:], "strides": w.strides[1:], "padding": string(w.padding), "depth_multiplier": l.multiplier(),
		"data_format": "channels_last", "dilation_rate": w.dilation[1:], "activation": activationName(l.Activation), "use_bias": !l.NoBias,
		"depthwise_initializer": initializerObject("glorot_uniform"), "bias_initializer": initializerObject("zeros"), "activity_regularizer": nil,
	}
	return cfg, penaltiesConfig(cfg, map[string]regularizers.Regularizer{"depthwise": l.DepthwiseRegularizer, "bias": l.BiasRegularizer},
		map[string]constraints.Constraint{"depthwise": l.DepthwiseConstraint, "bias": l.BiasConstraint})
}

func init() {
	mustRegister("DepthwiseConv1D", func(r *serialization.Reader) (Layer, error) {
		r.NotNull("kernel_size", "strides", "padding", "dilation_rate")
		l := &DepthwiseConv1D{KernelSize: readPositiveOne(r, "kernel_size", 0), Strides: readPositiveOne(r, "strides", 1), Padding: r.String("padding", "valid"),
			DepthMultiplier: r.Int("depth_multiplier", 1), DilationRate: readPositiveOne(r, "dilation_rate", 1),
			Activation: readActivation(r, "activation"), NoBias: !r.Bool("use_bias", true)}
		readDepthwiseCommon(r, "depthwise")
		l.DepthwiseRegularizer, l.BiasRegularizer = readRegularizer(r, "depthwise_regularizer"), readRegularizer(r, "bias_regularizer")
		l.DepthwiseConstraint, l.BiasConstraint = readConstraint(r, "depthwise_constraint"), readConstraint(r, "bias_constraint")
		return l, nil
	})
}
