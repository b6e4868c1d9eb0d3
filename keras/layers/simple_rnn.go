package layers

import (
	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// SimpleRNN is the fully connected recurrent layer, like
// keras.layers.SimpleRNN: h = tanh(x·kernel + h·recurrent_kernel + bias)
// per step, kernel (features, units), recurrent_kernel (units, units),
// bias (units). Applied to two inputs, the second is the initial state.
type SimpleRNN struct {
	Units                int
	Activation           string // default "tanh"
	NoBias               bool
	KernelInitializer    string // default "glorot_uniform"
	RecurrentInitializer string // default "orthogonal"
	BiasInitializer      string // default "zeros"
	// KernelRegularizer, RecurrentRegularizer and BiasRegularizer add
	// penalties of the kernel, recurrent kernel and bias to the training
	// loss (Keras's kernel_regularizer, ...); nil for none.
	KernelRegularizer, RecurrentRegularizer, BiasRegularizer regularizers.Regularizer
	// KernelConstraint, RecurrentConstraint and BiasConstraint project
	// them after each update (Keras's kernel_constraint, ...).
	KernelConstraint, RecurrentConstraint, BiasConstraint constraints.Constraint
	Dropout                                               float64
	RecurrentDropout                                      float64
	ReturnSequences                                       bool
	ReturnState                                           bool // adds the final state as a second output (layers.ApplyOutputs)
	GoBackwards                                           bool
	// ZeroOutputForMask makes a masked step's output zeros instead of
	// the previous step's (Keras's zero_output_for_mask; Bidirectional
	// sets it on its layers when they return sequences, as Keras does).
	ZeroOutputForMask bool
	Base

	w    recurrentWeights
	act  activations.Func
	outs []backend.Shape
}

// ClassName returns "SimpleRNN".
func (*SimpleRNN) ClassName() string { return "SimpleRNN" }

func (l *SimpleRNN) settings() recurrentSettings {
	return recurrentSettings{units: l.Units, returnSequences: l.ReturnSequences, goBackwards: l.GoBackwards,
		dropout: l.Dropout, recurrentDropout: l.RecurrentDropout, gates: 1, zeroOutputForMask: l.ZeroOutputForMask}
}

// Build checks the input and creates the weights.
func (l *SimpleRNN) Build(inputs []backend.Shape) (backend.Shape, error) {
	s := l.settings()
	out, features, err := buildRecurrent(inputs, s, 1)
	if err != nil {
		return nil, err
	}
	if l.act, err = recurrentActivation(l.Activation, "tanh"); err != nil {
		return nil, err
	}
	bias, err := initializers.Get(l.BiasInitializer, initializers.Constant{})
	if err != nil {
		return nil, err
	}
	l.w, err = l.addRecurrentWeights(features, s, l.KernelInitializer, l.RecurrentInitializer, l.NoBias, bias, backend.Shape{l.Units}, l.penalties())
	l.outs = recurrentOutputs(out, s, l.ReturnState, 1)
	return out, err
}

// OutputShapes returns the output's shape, then with ReturnState the state's.
func (l *SimpleRNN) OutputShapes() []backend.Shape { return l.outs }

// Call runs the sequence and returns the output.
func (l *SimpleRNN) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallOutputs(ctx, in)[0]
}

// CallOutputs runs the sequence and returns the output, then with
// ReturnState the final state.
func (l *SimpleRNN) CallOutputs(ctx *Context, in []backend.Value) []backend.Value {
	var bias backend.Value
	if l.w.bias != nil {
		bias = ctx.Weight(l.w.bias)
	}
	r := ctx.Weight(l.w.recurrentKernel)
	out, states := unroll(ctx, l.settings(), in[0], ctx.Weight(l.w.kernel), bias, in[1:], 1, simpleRNNStep(l.act, r))
	if !l.ReturnState {
		return []backend.Value{out}
	}
	return append([]backend.Value{out}, states...)
}

// simpleRNNStep is one SimpleRNN step over the input's projection xt,
// with recurrent kernel r (SimpleRNN's and SimpleRNNCell's).
func simpleRNNStep(act activations.Func, r backend.Value) stepFunc {
	return func(b backend.Builder, xt, h backend.Value, _ []backend.Value) (backend.Value, []backend.Value) {
		hNew := act(b, b.Add(xt, b.MatMul(h, r)))
		return hNew, []backend.Value{hNew}
	}
}

// SavedGroups keeps the weights under "cell", as Keras's SimpleRNN does.
func (l *SimpleRNN) SavedGroups() []SavedGroup { return cellGroups(&l.Base) }

// GetConfig returns Keras's SimpleRNN config.
func (l *SimpleRNN) GetConfig() (serialization.Config, error) {
	return recurrentConfig(l.settings(), l.ReturnState, defaultName(l.Activation, "tanh"), l.KernelInitializer, l.RecurrentInitializer, l.BiasInitializer, l.NoBias, l.penalties())
}

func init() {
	mustRegister("SimpleRNN", func(r *serialization.Reader) (Layer, error) {
		rr := readRecurrent(r)
		l := &SimpleRNN{Units: rr.units, Activation: rr.activation, NoBias: rr.noBias, KernelInitializer: rr.kernelInit,
			RecurrentInitializer: rr.recurrentInit, BiasInitializer: rr.biasInit, Dropout: rr.dropout,
			RecurrentDropout: rr.recurrentDropout, ReturnSequences: rr.returnSequences, ReturnState: rr.returnState, GoBackwards: rr.goBackwards, ZeroOutputForMask: rr.zeroOutputForMask}
		l.setPenalties(rr.penalties)
		return l, nil
	})
}

func (l *SimpleRNN) setZeroOutputForMask(on bool) { l.ZeroOutputForMask = on }

// takesUnknownDims: SimpleRNN reads lengths other than its features from its input.
func (*SimpleRNN) takesUnknownDims() {}

func (l *SimpleRNN) penalties() recurrentPenalties {
	return recurrentPenalties{kernelReg: l.KernelRegularizer, recurrentReg: l.RecurrentRegularizer, biasReg: l.BiasRegularizer,
		kernelCon: l.KernelConstraint, recurrentCon: l.RecurrentConstraint, biasCon: l.BiasConstraint}
}

func (l *SimpleRNN) setPenalties(p recurrentPenalties) {
	l.KernelRegularizer, l.RecurrentRegularizer, l.BiasRegularizer = p.kernelReg, p.recurrentReg, p.biasReg
	l.KernelConstraint, l.RecurrentConstraint, l.BiasConstraint = p.kernelCon, p.recurrentCon, p.biasCon
}
