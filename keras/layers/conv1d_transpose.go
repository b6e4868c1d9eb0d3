package layers

import (
	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Conv1DTranspose is the transposed convolution of sequences (batch,
// steps, channels), like keras.layers.Conv1DTranspose: each input step
// spreads its kernel-weighted values over KernelSize output steps, Strides
// apart. The kernel has Keras's shape (size, filters, input channels).
type Conv1DTranspose struct {
	Filters      int    // output channels; required
	KernelSize   int    // required
	Strides      int    // default 1
	Padding      string // "valid" (default) or "same"
	DilationRate int    // default 1; strides must then be 1
	// OutputPadding is Keras's output_padding: nil is Keras's None (the
	// padding alone sets the output's length); one value, less than the
	// strides, adds that many steps at the end.
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

// ClassName returns "Conv1DTranspose".
func (*Conv1DTranspose) ClassName() string { return "Conv1DTranspose" }

// Build creates the kernel and bias and returns the output shape.
func (c *Conv1DTranspose) Build(inputs []backend.Shape) (backend.Shape, error) {
	var out backend.Shape
	var err error
	c.kernel, c.bias, c.act, out, err = c.spec().build(&c.Base, inputs, c.Filters, c.kernelAndBias(), c.Activation)
	return out, err
}

// Call computes Keras's ops.conv_transpose (ops.ConvTranspose), plus the
// bias, activated.
func (c *Conv1DTranspose) Call(ctx *Context, in []backend.Value) backend.Value {
	return c.spec().call(ctx, in[0], c.kernel, c.bias, c.act)
}

// GetConfig returns Keras's Conv1DTranspose config.
func (c *Conv1DTranspose) GetConfig() (serialization.Config, error) {
	return c.spec().config(c.Filters, c.Activation, c.kernelAndBias())
}

// spec is the layer's settings as the transposed convolutions share them.
func (c *Conv1DTranspose) spec() transposeSpec {
	return newTransposeSpec([]int{c.KernelSize}, []int{c.Strides}, []int{c.DilationRate}, c.OutputPadding, c.Padding)
}

func init() {
	mustRegister("Conv1DTranspose", func(r *serialization.Reader) (Layer, error) {
		filters, t, activation, kb := readTranspose(r, 1)
		c := &Conv1DTranspose{Filters: filters, KernelSize: t.kernel[0], Strides: t.strides[0], DilationRate: t.dilation[0], Padding: t.padding, OutputPadding: t.outputPadding, Activation: activation}
		c.setKernelAndBias(kb)
		return c, nil
	})
}

func (c *Conv1DTranspose) kernelAndBias() kernelAndBias {
	return kernelAndBias{noBias: c.NoBias, kernelInit: c.KernelInitializer, biasInit: c.BiasInitializer,
		kernelReg: c.KernelRegularizer, biasReg: c.BiasRegularizer, kernelCon: c.KernelConstraint, biasCon: c.BiasConstraint}
}

func (c *Conv1DTranspose) setKernelAndBias(kb kernelAndBias) {
	c.NoBias, c.KernelInitializer, c.BiasInitializer = kb.noBias, kb.kernelInit, kb.biasInit
	c.KernelRegularizer, c.BiasRegularizer, c.KernelConstraint, c.BiasConstraint = kb.kernelReg, kb.biasReg, kb.kernelCon, kb.biasCon
}
