package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Dense is a densely connected layer: activation(x·kernel + bias), applied
// to the last axis of its input, like keras.layers.Dense.
type Dense struct {
	Units             int    // output size; required
	Activation        string // "relu", "softmax", ...; empty is linear
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

// ClassName returns "Dense".
func (d *Dense) ClassName() string { return "Dense" }

// Build creates kernel (in, units) and bias (units).
func (d *Dense) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if d.Units <= 0 {
		return nil, fmt.Errorf("units must be positive, got %d", d.Units)
	}
	if len(in) < 2 || in[len(in)-1] <= 0 {
		return nil, fmt.Errorf("expected an input of shape (batch, ..., features), received %v", in)
	}
	if d.act, err = activations.Get(d.Activation); err != nil {
		return nil, err
	}
	features := in[len(in)-1]
	if d.kernel != nil && d.kernel.Shape[0] != features {
		return nil, fmt.Errorf("expected axis -1 of input shape to have value %d, but received input with shape %v", d.kernel.Shape[0], in)
	}
	if d.kernel, d.bias, err = d.addKernelAndBias(backend.Shape{features, d.Units}, d.Units, d.kernelAndBias()); err != nil {
		return nil, err
	}
	out := in.Clone()
	out[len(out)-1] = d.Units
	return activations.OutputShape(d.Activation, out)
}

// Call computes activation(x·kernel + bias).
func (d *Dense) Call(ctx *Context, inputs []backend.Value) backend.Value {
	b, x := ctx.B, inputs[0]
	s := x.Shape()
	if len(s) > 2 { // apply to the last axis: fold the others into rows
		x = b.Reshape(x, backend.Shape{s.Size() / s[len(s)-1], s[len(s)-1]})
	}
	y := b.MatMul(x, ctx.Weight(d.kernel))
	if d.bias != nil {
		y = b.Add(y, ctx.Weight(d.bias))
	}
	if len(s) > 2 {
		out := s.Clone()
		out[len(out)-1] = d.Units
		y = b.Reshape(y, out)
	}
	return d.act(b, y)
}

// GetConfig returns Keras's Dense config.
func (d *Dense) GetConfig() (serialization.Config, error) {
	cfg := serialization.Config{"units": d.Units, "activation": activationName(d.Activation)}
	return cfg, kernelAndBiasConfig(cfg, d.kernelAndBias())
}

// takesUnknownDims: Dense reads lengths other than its features from its input.
func (*Dense) takesUnknownDims() {}

func init() {
	mustRegister("Dense", func(r *serialization.Reader) (Layer, error) {
		d := &Dense{Units: r.PositiveInt("units", 0), Activation: readActivation(r, "activation")}
		d.setKernelAndBias(readKernelAndBias(r))
		return d, nil
	})
}

func (d *Dense) kernelAndBias() kernelAndBias {
	return kernelAndBias{noBias: d.NoBias, kernelInit: d.KernelInitializer, biasInit: d.BiasInitializer,
		kernelReg: d.KernelRegularizer, biasReg: d.BiasRegularizer, kernelCon: d.KernelConstraint, biasCon: d.BiasConstraint}
}

func (d *Dense) setKernelAndBias(kb kernelAndBias) {
	d.NoBias, d.KernelInitializer, d.BiasInitializer = kb.noBias, kb.kernelInit, kb.biasInit
	d.KernelRegularizer, d.BiasRegularizer, d.KernelConstraint, d.BiasConstraint = kb.kernelReg, kb.biasReg, kb.kernelCon, kb.biasCon
}
