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

// Conv3D is a 3-D convolution over channels_last volumes (batch, depth,
// rows, cols, channels), like keras.layers.Conv3D (video frames, medical
// scans). The kernel has Keras's shape (depth, rows, cols,
// channels/Groups, Filters). ops.Conv computes it as a sum of 2-D
// convolutions, one per depth tap of the kernel.
type Conv3D struct {
	Filters           int    // output channels; required
	KernelSize        [3]int // required
	Strides           [3]int // default (1, 1, 1)
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
	// default (1, 1, 1). Strides must then be 1, as in Keras.
	DilationRate [3]int
	// Groups splits the channels into groups convolved separately
	// (Keras's groups); default 1.
	Groups int
	Base

	kernel, bias *Weight
	act          activations.Func
}

// ClassName returns "Conv3D".
func (*Conv3D) ClassName() string { return "Conv3D" }

func (c *Conv3D) windows() volumeWindows {
	return volumeConvWindows(c.KernelSize, c.Strides, c.DilationRate, c.Padding)
}

// Build creates kernel (depth, rows, cols, in/groups, filters) and bias
// (filters).
func (c *Conv3D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if c.Filters <= 0 {
		return nil, fmt.Errorf("filters must be positive, got %d", c.Filters)
	}
	out, err := c.windows().volume(in)
	if err != nil {
		return nil, err
	}
	groups := max(c.Groups, 1)
	if c.Groups < 0 || in[4]%groups != 0 || c.Filters%groups != 0 {
		return nil, fmt.Errorf("groups %d must divide the input channels (%d) and the filters (%d)", c.Groups, in[4], c.Filters)
	}
	if c.act, err = activations.Get(c.Activation); err != nil {
		return nil, err
	}
	k := c.KernelSize
	if c.kernel, c.bias, err = c.addKernelAndBias(backend.Shape{k[0], k[1], k[2], in[4] / groups, c.Filters}, c.Filters, c.kernelAndBias()); err != nil {
		return nil, err
	}
	return activations.OutputShape(c.Activation, backend.Shape{in[0], out[0], out[1], out[2], c.Filters})
}

// Call convolves, adds the bias and applies the activation.
func (c *Conv3D) Call(ctx *Context, inputs []backend.Value) backend.Value {
	b := ctx.B
	y := ops.Conv(b, inputs[0], ctx.Weight(c.kernel), c.windows().convOptions())
	if c.bias != nil {
		y = b.Add(y, ctx.Weight(c.bias))
	}
	return c.act(b, y)
}

// GetConfig returns Keras's Conv3D config.
func (c *Conv3D) GetConfig() (serialization.Config, error) {
	w := c.windows()
	cfg := serialization.Config{
		"filters": c.Filters, "kernel_size": w.size[:], "strides": w.strides[:], "padding": string(w.padding),
		"data_format": "channels_last", "dilation_rate": w.dilation[:], "groups": max(c.Groups, 1),
		"activation": activationName(c.Activation), "activity_regularizer": nil,
	}
	return cfg, kernelAndBiasConfig(cfg, c.kernelAndBias())
}

// takesUnknownDims: Conv3D reads lengths other than its features from its input.
func (*Conv3D) takesUnknownDims() {}

func init() {
	mustRegister("Conv3D", func(r *serialization.Reader) (Layer, error) {
		r.NotNull("kernel_size", "strides", "padding", "dilation_rate")
		c := &Conv3D{Filters: r.PositiveInt("filters", 0), KernelSize: r.PositiveTriple("kernel_size", [3]int{}), Strides: r.PositiveTriple("strides", [3]int{1, 1, 1}),
			Padding: r.String("padding", "valid"), Activation: readActivation(r, "activation")}
		r.Expect("data_format", "channels_last", "kerasgo's convolutions take channels_last input")
		c.DilationRate = r.PositiveTriple("dilation_rate", [3]int{1, 1, 1})
		c.Groups = r.PositiveInt("groups", 1)
		c.setKernelAndBias(readKernelAndBias(r))
		return c, nil
	})
}

func (c *Conv3D) kernelAndBias() kernelAndBias {
	return kernelAndBias{noBias: c.NoBias, kernelInit: c.KernelInitializer, biasInit: c.BiasInitializer,
		kernelReg: c.KernelRegularizer, biasReg: c.BiasRegularizer, kernelCon: c.KernelConstraint, biasCon: c.BiasConstraint}
}

func (c *Conv3D) setKernelAndBias(kb kernelAndBias) {
	c.NoBias, c.KernelInitializer, c.BiasInitializer = kb.noBias, kb.kernelInit, kb.biasInit
	c.KernelRegularizer, c.BiasRegularizer, c.KernelConstraint, c.BiasConstraint = kb.kernelReg, kb.biasReg, kb.kernelCon, kb.biasCon
}
