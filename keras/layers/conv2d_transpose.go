package layers

import (
	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Conv2DTranspose is the transposed convolution of channels_last images,
// like keras.layers.Conv2DTranspose (the upsampling half of a U-Net): each
// input pixel spreads its kernel-weighted values over a kernel-sized patch
// of the output, patches Strides apart. The output is (rows-1)*stride +
// kernel ("valid") or rows*stride ("same") pixels high, as in Keras,
// unless OutputPadding sets it.
//
// The kernel has Keras's shape (rows, cols, filters, input channels).
type Conv2DTranspose struct {
	Filters    int    // output channels; required
	KernelSize [2]int // required
	Strides    [2]int // default (1, 1)
	Padding    string // "valid" (default) or "same"
	// DilationRate spaces the kernel's taps (Keras's dilation_rate);
	// default (1, 1). Strides must then be 1, as in Keras.
	DilationRate [2]int
	// OutputPadding is Keras's output_padding: nil is Keras's None (the
	// padding alone sets the output's size); one value for both axes or
	// one each, each less than its stride.
	OutputPadding     []int
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

// Build creates the kernel and bias and returns the output shape.
func (c *Conv2DTranspose) Build(inputs []backend.Shape) (backend.Shape, error) {
	var out backend.Shape
	var err error
	c.kernel, c.bias, c.act, out, err = c.spec().build(&c.Base, inputs, c.Filters, c.kernelAndBias(), c.Activation)
	return out, err
}

// Call computes Keras's ops.conv_transpose (ops.ConvTranspose), plus the
// bias, activated.
func (c *Conv2DTranspose) Call(ctx *Context, in []backend.Value) backend.Value {
	return c.spec().call(ctx, in[0], c.kernel, c.bias, c.act)
}

// GetConfig returns Keras's Conv2DTranspose config.
func (c *Conv2DTranspose) GetConfig() (serialization.Config, error) {
	return c.spec().config(c.Filters, c.Activation, c.kernelAndBias())
}

// spec is the layer's settings as the transposed convolutions share them.
func (c *Conv2DTranspose) spec() transposeSpec {
	return newTransposeSpec(c.KernelSize[:], c.Strides[:], c.DilationRate[:], c.OutputPadding, c.Padding)
}

func init() {
	mustRegister("Conv2DTranspose", func(r *serialization.Reader) (Layer, error) {
		filters, t, activation, kb := readTranspose(r, 2)
		c := &Conv2DTranspose{Filters: filters, KernelSize: [2]int(t.kernel), Strides: [2]int(t.strides), DilationRate: [2]int(t.dilation), Padding: t.padding, OutputPadding: t.outputPadding, Activation: activation}
		c.setKernelAndBias(kb)
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
