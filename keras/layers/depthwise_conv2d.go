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

// DepthwiseConv2D convolves each input channel with its own kernels, like
// keras.layers.DepthwiseConv2D: DepthMultiplier output channels per input
// channel (channel c's m-th at c*DepthMultiplier + m). The kernel has
// Keras's shape (rows, cols, channels, DepthMultiplier).
type DepthwiseConv2D struct {
	KernelSize      [2]int // required
	Strides         [2]int // default (1, 1)
	Padding         string // "valid" (default) or "same"
	DepthMultiplier int    // default 1
	DilationRate    [2]int // default (1, 1)
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

// ClassName returns "DepthwiseConv2D".
func (*DepthwiseConv2D) ClassName() string { return "DepthwiseConv2D" }

func (l *DepthwiseConv2D) multiplier() int { return max(l.DepthMultiplier, 1) }

func (l *DepthwiseConv2D) windows() windows {
	return convWindows(l.KernelSize, l.Strides, l.DilationRate, l.Padding)
}

// convWindows fills Keras's defaults into a convolution's windows.
func convWindows(size, strides, dilation [2]int, padding string) windows {
	o := backend.ConvOptions{Strides: strides, Padding: backend.Padding(padding)}.Normalized()
	if dilation == ([2]int{}) {
		dilation = [2]int{1, 1}
	}
	return windows{size: size, strides: o.Strides, dilation: dilation, padding: o.Padding}
}

// Build creates the depthwise kernel and bias.
func (l *DepthwiseConv2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if l.DepthMultiplier < 0 {
		return nil, fmt.Errorf("depth_multiplier must be positive, got %d", l.DepthMultiplier)
	}
	w := l.windows()
	rows, cols, err := w.image(in)
	if err != nil {
		return nil, err
	}
	if l.act, err = activations.Get(l.Activation); err != nil {
		return nil, err
	}
	out := in[3] * l.multiplier()
	if l.kernel, err = l.AddWeight("kernel", backend.Shape{w.size[0], w.size[1], in[3], l.multiplier()}, initializers.GlorotUniform{}); err != nil {
		return nil, err
	}
	if err := regularize(l.kernel, "depthwise", l.DepthwiseRegularizer, l.DepthwiseConstraint); err != nil {
		return nil, err
	}
	if l.bias, err = l.addBias(out, l.NoBias, l.BiasRegularizer, l.BiasConstraint); err != nil {
		return nil, err
	}
	return activations.OutputShape(l.Activation, backend.Shape{in[0], rows, cols, out})
}

// Call convolves channel by channel, adds the bias and activates.
func (l *DepthwiseConv2D) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	y := ops.DepthwiseConv(b, in[0], ctx.Weight(l.kernel), l.windows().convOptions())
	if l.bias != nil {
		y = b.Add(y, ctx.Weight(l.bias))
	}
	return l.act(b, y)
}

// GetConfig returns Keras's config.
func (l *DepthwiseConv2D) GetConfig() (serialization.Config, error) {
	w := l.windows()
	cfg := serialization.Config{
		"kernel_size": w.size[:], "strides": w.strides[:], "padding": string(w.padding), "depth_multiplier": l.multiplier(),
		"data_format": "channels_last", "dilation_rate": w.dilation[:], "activation": activationName(l.Activation), "use_bias": !l.NoBias,
		"depthwise_initializer": initializerObject("glorot_uniform"), "bias_initializer": initializerObject("zeros"), "activity_regularizer": nil,
	}
	return cfg, penaltiesConfig(cfg, map[string]regularizers.Regularizer{"depthwise": l.DepthwiseRegularizer, "bias": l.BiasRegularizer},
		map[string]constraints.Constraint{"depthwise": l.DepthwiseConstraint, "bias": l.BiasConstraint})
}

// addBias creates a convolution's bias of size n unless noBias, with its
// regularizer and constraint (refused without a bias).
func (c *Base) addBias(n int, noBias bool, reg regularizers.Regularizer, con constraints.Constraint) (*Weight, error) {
	if noBias {
		if reg != nil || con != nil {
			return nil, fmt.Errorf("a bias regularizer or constraint was given with use_bias=False (NoBias): drop it, or keep the bias")
		}
		return nil, nil
	}
	bias, err := c.AddWeight("bias", backend.Shape{n}, initializers.Constant{})
	if err != nil {
		return nil, err
	}
	return bias, regularize(bias, "bias", reg, con)
}

// readDepthwiseCommon reads the settings DepthwiseConv2D and
// SeparableConv2D share: channels_last, and Keras's default initializers
// for the kernels (prefixes) and the bias.
func readDepthwiseCommon(r *serialization.Reader, prefixes ...string) {
	r.Expect("data_format", "channels_last", "kerasgo's convolutions take channels_last input")
	for _, p := range prefixes {
		if got := readInitializer(r, p+"_initializer"); got != "" && got != "glorot_uniform" {
			r.Fail(p+"_initializer", "%s is not supported by kerasgo (only glorot_uniform)", got)
		}
	}
	if got := readInitializer(r, "bias_initializer"); got != "" && got != "zeros" {
		r.Fail("bias_initializer", "%s is not supported by kerasgo (only zeros)", got)
	}
}

func init() {
	mustRegister("DepthwiseConv2D", func(r *serialization.Reader) (Layer, error) {
		r.NotNull("kernel_size", "strides", "padding", "dilation_rate")
		l := &DepthwiseConv2D{KernelSize: r.PositivePair("kernel_size", [2]int{}), Strides: r.PositivePair("strides", [2]int{1, 1}), Padding: r.String("padding", "valid"),
			DepthMultiplier: r.Int("depth_multiplier", 1), DilationRate: r.PositivePair("dilation_rate", [2]int{1, 1}),
			Activation: readActivation(r, "activation"), NoBias: !r.Bool("use_bias", true)}
		readDepthwiseCommon(r, "depthwise")
		l.DepthwiseRegularizer, l.BiasRegularizer = readRegularizer(r, "depthwise_regularizer"), readRegularizer(r, "bias_regularizer")
		l.DepthwiseConstraint, l.BiasConstraint = readConstraint(r, "depthwise_constraint"), readConstraint(r, "bias_constraint")
		return l, nil
	})
}
