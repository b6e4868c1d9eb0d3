package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// LSTMCell is one step of an LSTM, like keras.layers.LSTMCell, for RNN:
// RNN{Cell: &LSTMCell{Units: 8}} is LSTM{Units: 8}, with the same weights
// (kernel (features, 4*units), recurrent_kernel (units, 4*units), bias
// (4*units)) and states (h, c).
type LSTMCell struct {
	Units                int
	Activation           string // default "tanh"
	RecurrentActivation  string // default "sigmoid"
	NoBias               bool
	KernelInitializer    string // default "glorot_uniform"
	RecurrentInitializer string // default "orthogonal"
	BiasInitializer      string // default "zeros"
	// The kernels' and the bias's regularizers and constraints (Keras's
	// kernel_regularizer, ...); nil for none.
	KernelRegularizer, RecurrentRegularizer, BiasRegularizer regularizers.Regularizer
	KernelConstraint, RecurrentConstraint, BiasConstraint    constraints.Constraint
	// NoUnitForgetBias turns off Keras's unit_forget_bias (on by
	// default): the forget gate's bias starts at 1, the rest at 0.
	NoUnitForgetBias bool
	Dropout          float64 // fraction of the step input dropped in training (one mask per call)
	RecurrentDropout float64 // fraction of h dropped in training (one mask per call)
	Base

	core cellCore
}

// ClassName returns "LSTMCell".
func (*LSTMCell) ClassName() string { return "LSTMCell" }

// StateSizes are h's and c's sizes, Units each.
func (c *LSTMCell) StateSizes() []int { return []int{c.Units, c.Units} }

// OutputSize is Units.
func (c *LSTMCell) OutputSize() int { return c.Units }

// Build creates the weights for steps (batch, features).
func (c *LSTMCell) Build(inputs []backend.Shape) (backend.Shape, error) {
	c.core = cellCore{units: c.Units, dropout: c.Dropout, recurrentDropout: c.RecurrentDropout}
	var err error
	if c.core.act, err = recurrentActivation(c.Activation, "tanh"); err != nil {
		return nil, err
	}
	if c.core.recAct, err = recurrentActivation(c.RecurrentActivation, "sigmoid"); err != nil {
		return nil, err
	}
	bias, err := initializers.Get(c.BiasInitializer, initializers.Constant{})
	if err != nil {
		return nil, err
	}
	if !c.NoUnitForgetBias {
		bias = unitForgetBias{c.Units}
	}
	return c.core.build(&c.Base, inputs, 4, c.KernelInitializer, c.RecurrentInitializer, c.NoBias, bias, backend.Shape{4 * c.Units}, c.penalties())
}

// Call computes one step from zero states (the cell alone; RNN steps it).
func (c *LSTMCell) Call(ctx *Context, in []backend.Value) backend.Value {
	out, _ := c.Step(ctx, in[0], zeroState(ctx.B, in[0], c.Units, in[1:], 2))
	return out
}

// Step computes one LSTM step: the output and (h, c).
func (c *LSTMCell) Step(ctx *Context, x backend.Value, states []backend.Value) (backend.Value, []backend.Value) {
	return c.stepDropped(ctx, x, states, cellMasks{})
}

func (c *LSTMCell) dropoutMasks(ctx *Context, batch, features int) cellMasks {
	return c.core.dropoutMasks(ctx, batch, features)
}

func (c *LSTMCell) stepDropped(ctx *Context, x backend.Value, states []backend.Value, m cellMasks) (backend.Value, []backend.Value) {
	var bias backend.Value
	if c.core.w.bias != nil {
		bias = ctx.Weight(c.core.w.bias)
	}
	return c.core.run(ctx, x, states, m, bias, lstmStep(c.core.act, c.core.recAct, ctx.Weight(c.core.w.recurrentKernel), c.Units))
}

// GetConfig returns Keras's LSTMCell config.
func (c *LSTMCell) GetConfig() (serialization.Config, error) {
	cfg, err := recurrentConfig(recurrentSettings{units: c.Units, dropout: c.Dropout, recurrentDropout: c.RecurrentDropout}, false, defaultName(c.Activation, "tanh"),
		c.KernelInitializer, c.RecurrentInitializer, c.BiasInitializer, c.NoBias, c.penalties())
	if err != nil {
		return nil, err
	}
	cfg["recurrent_activation"] = defaultName(c.RecurrentActivation, "sigmoid")
	cfg["unit_forget_bias"] = !c.NoUnitForgetBias
	return cellConfig(cfg), nil
}

func (c *LSTMCell) penalties() recurrentPenalties {
	return recurrentPenalties{kernelReg: c.KernelRegularizer, recurrentReg: c.RecurrentRegularizer, biasReg: c.BiasRegularizer,
		kernelCon: c.KernelConstraint, recurrentCon: c.RecurrentConstraint, biasCon: c.BiasConstraint}
}

func init() {
	mustRegister("LSTMCell", func(r *serialization.Reader) (Layer, error) {
		rr := readCellCommon(r)
		p := rr.penalties
		return &LSTMCell{Units: rr.units, Activation: rr.activation, RecurrentActivation: readSetActivation(r, "recurrent_activation", "sigmoid"), NoBias: rr.noBias,
			KernelInitializer: rr.kernelInit, RecurrentInitializer: rr.recurrentInit, BiasInitializer: rr.biasInit,
			KernelRegularizer: p.kernelReg, RecurrentRegularizer: p.recurrentReg, BiasRegularizer: p.biasReg,
			KernelConstraint: p.kernelCon, RecurrentConstraint: p.recurrentCon, BiasConstraint: p.biasCon,
			NoUnitForgetBias: !r.Bool("unit_forget_bias", true), Dropout: rr.dropout, RecurrentDropout: rr.recurrentDropout}, nil
	})
}
