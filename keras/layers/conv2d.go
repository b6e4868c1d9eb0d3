package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Conv2D is a 2-D convolution over channels_last input (batch, rows, cols,
// channels), like keras.layers.Conv2D.
type Conv2D struct {
	Filters           int    // output channels; required
	KernelSize        [2]int // required
	Strides           [2]int // default (1, 1)
	Padding           string // "valid" (default) or "same"
	Activation        string // empty is linear
	NoBias            bool   // Keras's use_bias=False
	KernelInitializer string // default "glorot_uniform"
	BiasInitializer   string // default "zeros"
	// KernelRegularizer and BiasRegularizer add a penalty of the kernel
	// and bias to the training loss (Keras's kernel_regularizer,
	// bias_regularizer); nil for none.
	KernelRegularizer, BiasRegularizer regularizers.Regularizer
	// KernelConstraint and BiasConstraint project the kernel and bias
	// after each update (Keras's kernel_constraint, bias_constraint).
	KernelConstraint, BiasConstraint constraints.Constraint
	// DilationRate spaces the kernel's taps (Keras's dilation_rate);
	// default (1, 1). Strides must then be 1, as in Keras.
	DilationRate [2]int
	// Groups splits the channels into groups convolved separately
	// (Keras's groups); default 1. The kernel is then (rows, cols,
	// channels/Groups, Filters).
	Groups int
	Base

	kernel, bias *Weight
	act          activations.Func
}

// ClassName returns "Conv2D".
func (c *Conv2D) ClassName() string { return "Conv2D" }

func (c *Conv2D) options() backend.ConvOptions {
	return backend.ConvOptions{Strides: c.Strides, Padding: backend.Padding(c.Padding)}.Normalized()
}

// Build creates kernel (rows, cols, in, filters) and bias (filters).
func (c *Conv2D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if c.Filters <= 0 || c.KernelSize[0] <= 0 || c.KernelSize[1] <= 0 {
		return nil, fmt.Errorf("filters and kernel size must be positive, got %d and %v", c.Filters, c.KernelSize)
	}
	if len(in) != 4 {
		return nil, fmt.Errorf("expected an input of shape (batch, rows, cols, channels), received %v: reshape the data, e.g. with a Reshape layer", in)
	}
	if c.act, err = activations.Get(c.Activation); err != nil {
		return nil, err
	}
	groups := max(c.Groups, 1)
	if c.Groups < 0 || in[3]%groups != 0 || c.Filters%groups != 0 {
		return nil, fmt.Errorf("groups %d must divide the input channels (%d) and the filters (%d)", c.Groups, in[3], c.Filters)
	}
	w := c.windows()
	if w.dilation != [2]int{1, 1} && w.strides != [2]int{1, 1} {
		return nil, fmt.Errorf("dilation_rate %v needs strides of 1, as in Keras; got %v", w.dilation, w.strides)
	}
	if err := w.check(); err != nil {
		return nil, err
	}
	kshape := backend.Shape{c.KernelSize[0], c.KernelSize[1], in[3] / groups, c.Filters}
	rows, cols, err := w.outShape(in)
	if err != nil {
		return nil, err
	}
	out := backend.Shape{in[0], rows, cols, c.Filters}
	if c.kernel, c.bias, err = c.addKernelAndBias(kshape, c.Filters, c.kernelAndBias()); err != nil {
		return nil, err
	}
	return activations.OutputShape(c.Activation, out)
}

func (c *Conv2D) windows() windows {
	return convWindows(c.KernelSize, c.Strides, c.DilationRate, c.Padding)
}

// Call convolves, adds the bias and applies the activation.
func (c *Conv2D) Call(ctx *Context, inputs []backend.Value) backend.Value {
	b := ctx.B
	y := ops.Conv(b, inputs[0], ctx.Weight(c.kernel), c.windows().convOptions())
	if c.bias != nil {
		y = b.Add(y, ctx.Weight(c.bias))
	}
	return c.act(b, y)
}

// GetConfig returns Keras's Conv2D config.
func (c *Conv2D) GetConfig() (serialization.Config, error) {
	o, dilation := c.options(), c.windows().dilation
	cfg := serialization.Config{
		"filters": c.Filters, "kernel_size": c.KernelSize[:], "strides": o.Strides[:], "padding": string(o.Padding),
		"data_format": "channels_last", "dilation_rate": dilation[:], "groups": max(c.Groups, 1),
		"activation": activationName(c.Activation), "activity_regularizer": nil,
	}
	return cfg, kernelAndBiasConfig(cfg, c.kernelAndBias())
}

// takesUnknownDims: Conv2D reads lengths other than its features from its input.
func (*Conv2D) takesUnknownDims() {}

func init() {
	mustRegister("Conv2D", func(r *serialization.Reader) (Layer, error) {
		r.NotNull("kernel_size", "strides", "padding", "dilation_rate")
		c := &Conv2D{Filters: r.PositiveInt("filters", 0), KernelSize: r.PositivePair("kernel_size", [2]int{}), Strides: r.PositivePair("strides", [2]int{1, 1}),
			Padding: r.String("padding", "valid"), Activation: readActivation(r, "activation")}
		r.Expect("data_format", "channels_last", "kerasgo's convolutions take channels_last input")
		c.DilationRate = r.PositivePair("dilation_rate", [2]int{1, 1})
		c.Groups = r.PositiveInt("groups", 1)
		c.setKernelAndBias(readKernelAndBias(r))
		return c, nil
	})
}

func (c *Conv2D) kernelAndBias() kernelAndBias {
	return kernelAndBias{noBias: c.NoBias, kernelInit: c.KernelInitializer, biasInit: c.BiasInitializer,
		kernelReg: c.KernelRegularizer, biasReg: c.BiasRegularizer, kernelCon: c.KernelConstraint, biasCon: c.BiasConstraint}
}

func (c *Conv2D) setKernelAndBias(kb kernelAndBias) {
	c.NoBias, c.KernelInitializer, c.BiasInitializer = kb.noBias, kb.kernelInit, kb.biasInit
	c.KernelRegularizer, c.BiasRegularizer, c.KernelConstraint, c.BiasConstraint = kb.kernelReg, kb.biasReg, kb.kernelCon, kb.biasCon
}
