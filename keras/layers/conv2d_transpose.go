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

// Conv2DTranspose is the transposed convolution of channels_last images,
// like keras.layers.Conv2DTranspose (the upsampling half of a U-Net): each
// input pixel spreads its kernel-weighted values over a kernel-sized patch
// of the output, patches Strides apart. The output is (rows-1)*stride +
// kernel ("valid") or rows*stride ("same") pixels high, as in Keras.
//
// The kernel has Keras's shape (rows, cols, filters, input channels).
type Conv2DTranspose struct {
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
	Base

	kernel, bias *Weight
	act          activations.Func
}

// ClassName returns "Conv2DTranspose".
func (*Conv2DTranspose) ClassName() string { return "Conv2DTranspose" }

func (c *Conv2DTranspose) strides() [2]int {
	if c.Strides == ([2]int{}) {
		return [2]int{1, 1}
	}
	return c.Strides
}

func (c *Conv2DTranspose) padding() string {
	if c.Padding == "" {
		return "valid"
	}
	return c.Padding
}

// outputSize is Keras's deconv_output_length without output_padding.
func (c *Conv2DTranspose) outputSize(in, k, s int) int {
	if c.padding() == "same" {
		return in * s
	}
	return in*s + max(k-s, 0)
}

// Build creates the kernel and bias and returns the output shape.
func (c *Conv2DTranspose) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	s := c.strides()
	if c.Filters <= 0 || c.KernelSize[0] <= 0 || c.KernelSize[1] <= 0 || s[0] <= 0 || s[1] <= 0 {
		return nil, fmt.Errorf("filters, kernel size and strides must be positive, got %d, %v and %v", c.Filters, c.KernelSize, s)
	}
	if p := c.padding(); p != "valid" && p != "same" {
		return nil, fmt.Errorf("padding must be \"valid\" or \"same\", got %q", c.Padding)
	}
	if len(in) != 4 || in[3] <= 0 {
		return nil, fmt.Errorf("expected an input of shape (batch, rows, cols, channels), received %v", in)
	}
	if c.act, err = activations.Get(c.Activation); err != nil {
		return nil, err
	}
	kshape := backend.Shape{c.KernelSize[0], c.KernelSize[1], c.Filters, in[3]}
	if c.kernel, c.bias, err = c.addKernelAndBias(kshape, c.Filters, c.kernelAndBias()); err != nil {
		return nil, err
	}
	return activations.OutputShape(c.Activation, backend.Shape{in[0], c.outputSize(in[1], c.KernelSize[0], s[0]), c.outputSize(in[2], c.KernelSize[1], s[1]), c.Filters})
}

// Call computes Keras's ops.conv_transpose (ops.ConvTranspose: the input
// spread Strides apart, padded as Keras pads it, and convolved in one
// Conv2D op with the kernel flipped in space), plus the bias.
func (c *Conv2DTranspose) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	s := c.strides()
	y := ops.ConvTranspose(b, in[0], ctx.Weight(c.kernel), ops.ConvTransposeOptions{Strides: s[:], Padding: backend.Padding(c.padding())})
	if c.bias != nil {
		y = b.Add(y, ctx.Weight(c.bias))
	}
	return c.act(b, y)
}

// GetConfig returns Keras's Conv2DTranspose config.
func (c *Conv2DTranspose) GetConfig() (serialization.Config, error) {
	s := c.strides()
	cfg := serialization.Config{
		"filters": c.Filters, "kernel_size": c.KernelSize[:], "strides": s[:], "padding": c.padding(),
		"output_padding": nil, "data_format": "channels_last", "dilation_rate": []int{1, 1},
		"activation": activationName(c.Activation), "activity_regularizer": nil,
	}
	return cfg, kernelAndBiasConfig(cfg, c.kernelAndBias())
}

func init() {
	mustRegister("Conv2DTranspose", func(r *serialization.Reader) (Layer, error) {
		r.NotNull("kernel_size", "strides", "padding", "dilation_rate")
		c := &Conv2DTranspose{Filters: r.PositiveInt("filters", 0), KernelSize: r.PositivePair("kernel_size", [2]int{}), Strides: r.PositivePair("strides", [2]int{1, 1}),
			Padding: r.String("padding", "valid"), Activation: readActivation(r, "activation")}
		r.Expect("data_format", "channels_last", "kerasgo's convolutions take channels_last input")
		r.Expect("dilation_rate", []any{1.0, 1.0}, "dilated convolutions are not implemented yet")
		r.ExpectNull("output_padding")
		c.setKernelAndBias(readKernelAndBias(r))
		return c, nil
	})
}

func (c *Conv2DTranspose) kernelAndBias() kernelAndBias {
	return kernelAndBias{noBias: c.NoBias, kernelInit: c.KernelInitializer, biasInit: c.BiasInitializer,
		kernelReg: c.KernelRegularizer, biasReg: c.BiasRegularizer, kernelCon: c.KernelConstraint, biasCon: c.BiasConstraint}
}

func (c *Conv2DTranspose) setKernelAndBias(kb kernelAndBias) {
	c.NoBias, c.KernelInitializer, c.BiasInitializer = kb.noBias, kb.kernelInit, kb.biasInit
	c.KernelRegularizer, c.BiasRegularizer, c.KernelConstraint, c.BiasConstraint = kb.kernelReg, kb.biasReg, kb.kernelCon, kb.biasCon
}
