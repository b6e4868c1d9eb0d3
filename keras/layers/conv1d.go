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

// Conv1D convolves sequences (batch, steps, channels), like
// keras.layers.Conv1D, as a Conv2D over a single row: the kernel has
// Keras's shape (size, channels/Groups, Filters). Padding "causal" pads the
// start only, so step t sees steps up to t (WaveNet-style).
type Conv1D struct {
	Filters           int    // required
	KernelSize        int    // required
	Strides           int    // default 1
	Padding           string // "valid" (default), "same" or "causal"
	DilationRate      int    // default 1; strides must then be 1
	Groups            int    // default 1
	Activation        string // empty is linear
	NoBias            bool
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

// ClassName returns "Conv1D".
func (*Conv1D) ClassName() string { return "Conv1D" }

func oneOr1(v int) int { return max(v, 1) }

// windows is the convolution as windows over a (batch, 1, steps,
// channels) image; causal padding is added before, so it is "valid".
func (c *Conv1D) windows() windows {
	p := c.Padding
	if p == "causal" {
		p = "valid"
	}
	return convWindows([2]int{1, c.KernelSize}, [2]int{1, oneOr1(c.Strides)}, [2]int{1, oneOr1(c.DilationRate)}, p)
}

// causalPad is how many steps causal padding adds at the start.
func (c *Conv1D) causalPad() int {
	if c.Padding != "causal" {
		return 0
	}
	return (c.KernelSize - 1) * oneOr1(c.DilationRate)
}

// Build checks the settings and creates the kernel and bias.
func (c *Conv1D) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) != 3 || in[2] <= 0 {
		return nil, fmt.Errorf("expected an input of shape (batch, steps, channels), received %v", in)
	}
	if c.Filters <= 0 || c.KernelSize <= 0 || c.Strides < 0 || c.DilationRate < 0 {
		return nil, fmt.Errorf("filters and kernel size must be positive, got %d and %d", c.Filters, c.KernelSize)
	}
	if p := c.Padding; p != "" && p != "valid" && p != "same" && p != "causal" {
		return nil, fmt.Errorf("padding must be \"valid\", \"same\" or \"causal\", got %q", p)
	}
	groups := oneOr1(c.Groups)
	if c.Groups < 0 || in[2]%groups != 0 || c.Filters%groups != 0 {
		return nil, fmt.Errorf("groups %d must divide the input channels (%d) and the filters (%d)", c.Groups, in[2], c.Filters)
	}
	if oneOr1(c.DilationRate) != 1 && oneOr1(c.Strides) != 1 {
		return nil, fmt.Errorf("dilation_rate %d needs strides of 1, as in Keras; got %d", c.DilationRate, c.Strides)
	}
	if c.act, err = activations.Get(c.Activation); err != nil {
		return nil, err
	}
	w := c.windows()
	_, steps, err := w.image(backend.Shape{in[0], 1, in[1] + c.causalPad(), in[2]})
	if err != nil {
		return nil, err
	}
	if c.kernel, c.bias, err = c.addKernelAndBias(backend.Shape{c.KernelSize, in[2] / groups, c.Filters}, c.Filters, c.kernelAndBias()); err != nil {
		return nil, err
	}
	return activations.OutputShape(c.Activation, backend.Shape{in[0], steps, c.Filters})
}

// Call convolves the sequence.
func (c *Conv1D) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	if p := c.causalPad(); p > 0 {
		x = ops.PadAxis(b, x, 1, p, 0)
	}
	w := c.windows() // a one-row image's: the steps are its second axis
	y := ops.Conv(b, x, ctx.Weight(c.kernel), ops.ConvOptions{Strides: w.strides[1:], Padding: w.padding, DilationRate: w.dilation[1:]})
	if c.bias != nil {
		y = b.Add(y, ctx.Weight(c.bias))
	}
	return c.act(b, y)
}

// GetConfig returns Keras's Conv1D config.
func (c *Conv1D) GetConfig() (serialization.Config, error) {
	padding := c.Padding
	if padding == "" {
		padding = "valid"
	}
	cfg := serialization.Config{
		"filters": c.Filters, "kernel_size": []int{c.KernelSize}, "strides": []int{oneOr1(c.Strides)}, "padding": padding,
		"data_format": "channels_last", "dilation_rate": []int{oneOr1(c.DilationRate)}, "groups": oneOr1(c.Groups),
		"activation": activationName(c.Activation), "activity_regularizer": nil,
	}
	return cfg, kernelAndBiasConfig(cfg, c.kernelAndBias())
}

// readOne reads Keras's int-or-one-element-tuple.
func readOne(r *serialization.Reader, key string, def int) int {
	v, ok := r.Value(key)
	if !ok || v == nil {
		return def
	}
	if _, isNum := v.(float64); isNum {
		return r.Int(key, def)
	}
	l := r.Ints(key)
	if len(l) != 1 {
		r.Fail(key, "want one integer, got %v", v)
		return def
	}
	return l[0]
}

// readPositiveOne is readOne for a setting whose value is at least 1.
func readPositiveOne(r *serialization.Reader, key string, def int) int {
	v, given := r.Value(key)
	n := readOne(r, key, def)
	if given && v != nil && n < 1 {
		r.Fail(key, "want an integer >= 1, got %d", n)
		return def
	}
	return n
}

func init() {
	mustRegister("Conv1D", func(r *serialization.Reader) (Layer, error) {
		r.NotNull("kernel_size", "strides", "padding", "dilation_rate")
		c := &Conv1D{Filters: r.PositiveInt("filters", 0), KernelSize: readPositiveOne(r, "kernel_size", 0), Strides: readPositiveOne(r, "strides", 1),
			Padding: r.String("padding", "valid"), DilationRate: readPositiveOne(r, "dilation_rate", 1), Groups: r.PositiveInt("groups", 1),
			Activation: readActivation(r, "activation")}
		r.Expect("data_format", "channels_last", "kerasgo's convolutions take channels_last input")
		c.setKernelAndBias(readKernelAndBias(r))
		return c, nil
	})
}

func (c *Conv1D) kernelAndBias() kernelAndBias {
	return kernelAndBias{noBias: c.NoBias, kernelInit: c.KernelInitializer, biasInit: c.BiasInitializer,
		kernelReg: c.KernelRegularizer, biasReg: c.BiasRegularizer, kernelCon: c.KernelConstraint, biasCon: c.BiasConstraint}
}

func (c *Conv1D) setKernelAndBias(kb kernelAndBias) {
	c.NoBias, c.KernelInitializer, c.BiasInitializer = kb.noBias, kb.kernelInit, kb.biasInit
	c.KernelRegularizer, c.BiasRegularizer, c.KernelConstraint, c.BiasConstraint = kb.kernelReg, kb.biasReg, kb.kernelCon, kb.biasCon
}

func (*Conv1D) takesUnknownDims() {}
