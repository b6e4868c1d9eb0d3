package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// GRUCell is one step of a GRU, like keras.layers.GRUCell, for RNN:
// RNN{Cell: &GRUCell{Units: 8}} is GRU{Units: 8}, with the same weights
// (kernel (features, 3*units), recurrent_kernel (units, 3*units), bias
// (2, 3*units), or (3*units) with NoResetAfter) and state h.
type GRUCell struct {
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
	// NoResetAfter applies the reset gate before the recurrent product
	// (Keras's reset_after=False).
	NoResetAfter     bool
	Dropout          float64 // fraction of the step input dropped in training (one mask per call)
	RecurrentDropout float64 // fraction of h dropped in training (one mask per call)
	Base

	core cellCore
}

// ClassName returns "GRUCell".
func (*GRUCell) ClassName() string { return "GRUCell" }

// StateSizes is h's size, Units.
func (c *GRUCell) StateSizes() []int { return []int{c.Units} }

// OutputSize is Units.
func (c *GRUCell) OutputSize() int { return c.Units }

// Build creates the weights for steps (batch, features).
func (c *GRUCell) Build(inputs []backend.Shape) (backend.Shape, error) {
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
	biasShape := backend.Shape{2, 3 * c.Units}
	if c.NoResetAfter {
		biasShape = backend.Shape{3 * c.Units}
	}
	return c.core.build(&c.Base, inputs, 3, c.KernelInitializer, c.RecurrentInitializer, c.NoBias, bias, biasShape, c.penalties())
}

// Call computes one step from a zero state (the cell alone; RNN steps it).
func (c *GRUCell) Call(ctx *Context, in []backend.Value) backend.Value {
	out, _ := c.Step(ctx, in[0], zeroState(ctx.B, in[0], c.Units, in[1:], 1))
	return out
}

// Step computes one GRU step: the output and h.
func (c *GRUCell) Step(ctx *Context, x backend.Value, states []backend.Value) (backend.Value, []backend.Value) {
	return c.stepDropped(ctx, x, states, cellMasks{})
}

func (c *GRUCell) dropoutMasks(ctx *Context, batch, features int) cellMasks {
	return c.core.dropoutMasks(ctx, batch, features)
}

func (c *GRUCell) stepDropped(ctx *Context, x backend.Value, states []backend.Value, m cellMasks) (backend.Value, []backend.Value) {
	inputBias, recurrentBias := gruBiases(ctx, c.core.w.bias, c.Units, !c.NoResetAfter)
	step := gruStep(c.core.act, c.core.recAct, ctx.Weight(c.core.w.recurrentKernel), recurrentBias, c.Units, !c.NoResetAfter)
	return c.core.run(ctx, x, states, m, inputBias, step)
}

// GetConfig returns Keras's GRUCell config.
func (c *GRUCell) GetConfig() (serialization.Config, error) {
	cfg, err := recurrentConfig(recurrentSettings{units: c.Units, dropout: c.Dropout, recurrentDropout: c.RecurrentDropout}, false, defaultName(c.Activation, "tanh"),
		c.KernelInitializer, c.RecurrentInitializer, c.BiasInitializer, c.NoBias, c.penalties())
	if err != nil {
		return nil, err
	}
	cfg["recurrent_activation"] = defaultName(c.RecurrentActivation, "sigmoid")
	cfg["reset_after"] = !c.NoResetAfter
	return cellConfig(cfg), nil
}

func (c *GRUCell) penalties() recurrentPenalties {
	return recurrentPenalties{kernelReg: c.KernelRegularizer, recurrentReg: c.RecurrentRegularizer, biasReg: c.BiasRegularizer,
		kernelCon: c.KernelConstraint, recurrentCon: c.RecurrentConstraint, biasCon: c.BiasConstraint}
}

func init() {
	mustRegister("GRUCell", func(r *serialization.Reader) (Layer, error) {
		rr := readCellCommon(r)
		p := rr.penalties
		return &GRUCell{Units: rr.units, Activation: rr.activation, RecurrentActivation: readSetActivation(r, "recurrent_activation", "sigmoid"), NoBias: rr.noBias,
			KernelInitializer: rr.kernelInit, RecurrentInitializer: rr.recurrentInit, BiasInitializer: rr.biasInit,
			KernelRegularizer: p.kernelReg, RecurrentRegularizer: p.recurrentReg, BiasRegularizer: p.biasReg,
			KernelConstraint: p.kernelCon, RecurrentConstraint: p.recurrentCon, BiasConstraint: p.biasCon,
			NoResetAfter: !r.Bool("reset_after", true), Dropout: rr.dropout, RecurrentDropout: rr.recurrentDropout}, nil
	})
}
