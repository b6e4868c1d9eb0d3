package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// SimpleRNNCell is one step of a SimpleRNN, like
// keras.layers.SimpleRNNCell, for RNN: RNN{Cell: &SimpleRNNCell{Units:
// 8}} is SimpleRNN{Units: 8}, with the same weights (kernel (features,
// units), recurrent_kernel (units, units), bias (units)) and state h.
type SimpleRNNCell struct {
	Units                int
	Activation           string // default "tanh"
	NoBias               bool
	KernelInitializer    string // default "glorot_uniform"
	RecurrentInitializer string // default "orthogonal"
	BiasInitializer      string // default "zeros"
	// The kernels' and the bias's regularizers and constraints (Keras's
	// kernel_regularizer, ...); nil for none.
	KernelRegularizer, RecurrentRegularizer, BiasRegularizer regularizers.Regularizer
	KernelConstraint, RecurrentConstraint, BiasConstraint    constraints.Constraint
	Dropout                                                  float64 // fraction of the step input dropped in training (one mask per call)
	RecurrentDropout                                         float64 // fraction of h dropped in training (one mask per call)
	Base

	core cellCore
}

// ClassName returns "SimpleRNNCell".
func (*SimpleRNNCell) ClassName() string { return "SimpleRNNCell" }

// StateSizes is h's size, Units.
func (c *SimpleRNNCell) StateSizes() []int { return []int{c.Units} }

// OutputSize is Units.
func (c *SimpleRNNCell) OutputSize() int { return c.Units }

// Build creates the weights for steps (batch, features).
func (c *SimpleRNNCell) Build(inputs []backend.Shape) (backend.Shape, error) {
	c.core = cellCore{units: c.Units, dropout: c.Dropout, recurrentDropout: c.RecurrentDropout}
	var err error
	if c.core.act, err = recurrentActivation(c.Activation, "tanh"); err != nil {
		return nil, err
	}
	bias, err := initializers.Get(c.BiasInitializer, initializers.Constant{})
	if err != nil {
		return nil, err
	}
	return c.core.build(&c.Base, inputs, 1, c.KernelInitializer, c.RecurrentInitializer, c.NoBias, bias, backend.Shape{c.Units}, c.penalties())
}

// Call computes one step from a zero state (the cell alone; RNN steps it).
func (c *SimpleRNNCell) Call(ctx *Context, in []backend.Value) backend.Value {
	out, _ := c.Step(ctx, in[0], zeroState(ctx.B, in[0], c.Units, in[1:], 1))
	return out
}

// Step computes one step: the output and h.
func (c *SimpleRNNCell) Step(ctx *Context, x backend.Value, states []backend.Value) (backend.Value, []backend.Value) {
	return c.stepDropped(ctx, x, states, cellMasks{})
}

func (c *SimpleRNNCell) dropoutMasks(ctx *Context, batch, features int) cellMasks {
	return c.core.dropoutMasks(ctx, batch, features)
}

func (c *SimpleRNNCell) stepDropped(ctx *Context, x backend.Value, states []backend.Value, m cellMasks) (backend.Value, []backend.Value) {
	var bias backend.Value
	if c.core.w.bias != nil {
		bias = ctx.Weight(c.core.w.bias)
	}
	return c.core.run(ctx, x, states, m, bias, simpleRNNStep(c.core.act, ctx.Weight(c.core.w.recurrentKernel)))
}

// GetConfig returns Keras's SimpleRNNCell config.
func (c *SimpleRNNCell) GetConfig() (serialization.Config, error) {
	cfg, err := recurrentConfig(recurrentSettings{units: c.Units, dropout: c.Dropout, recurrentDropout: c.RecurrentDropout}, false, defaultName(c.Activation, "tanh"),
		c.KernelInitializer, c.RecurrentInitializer, c.BiasInitializer, c.NoBias, c.penalties())
	if err != nil {
		return nil, err
	}
	return cellConfig(cfg), nil
}

func (c *SimpleRNNCell) penalties() recurrentPenalties {
	return recurrentPenalties{kernelReg: c.KernelRegularizer, recurrentReg: c.RecurrentRegularizer, biasReg: c.BiasRegularizer,
		kernelCon: c.KernelConstraint, recurrentCon: c.RecurrentConstraint, biasCon: c.BiasConstraint}
}

func init() {
	mustRegister("SimpleRNNCell", func(r *serialization.Reader) (Layer, error) {
		rr := readCellCommon(r)
		p := rr.penalties
		return &SimpleRNNCell{Units: rr.units, Activation: rr.activation, NoBias: rr.noBias,
			KernelInitializer: rr.kernelInit, RecurrentInitializer: rr.recurrentInit, BiasInitializer: rr.biasInit,
			KernelRegularizer: p.kernelReg, RecurrentRegularizer: p.recurrentReg, BiasRegularizer: p.biasReg,
			KernelConstraint: p.kernelCon, RecurrentConstraint: p.recurrentCon, BiasConstraint: p.biasCon,
			Dropout: rr.dropout, RecurrentDropout: rr.recurrentDropout}, nil
	})
}
