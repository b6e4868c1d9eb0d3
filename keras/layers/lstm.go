package layers

import (
	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// LSTM is the long short-term memory layer, like keras.layers.LSTM, with
// Keras 3's defaults and weight layout: kernel (features, 4*units),
// recurrent_kernel (units, 4*units), bias (4*units), gates in the order
// input, forget, cell, output. Per step:
//
//	z = x·kernel + h·recurrent_kernel + bias
//	c = σ(z_f)*c + σ(z_i)*tanh(z_c);  h = σ(z_o)*tanh(c)
//
// (σ is RecurrentActivation, tanh is Activation). Inputs are (batch,
// timesteps, features); the output is the last h (batch, units), or every
// step's h (batch, timesteps, units) with ReturnSequences. Applied to
// three inputs, the second and third are the initial h and c (Keras's
// initial_state).
type LSTM struct {
	Units                int
	Activation           string // default "tanh"
	RecurrentActivation  string // default "sigmoid"
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
	// NoUnitForgetBias turns off Keras's unit_forget_bias (on by
	// default): the forget gate's bias starts at 1, the rest at 0.
	NoUnitForgetBias bool
	Dropout          float64 // fraction of the inputs dropped in training
	RecurrentDropout float64 // fraction of the recurrent state dropped in training
	ReturnSequences  bool
	// ReturnState adds the final h and c as the layer's second and third
	// outputs (layers.ApplyOutputs), as Keras's return_state.
	ReturnState bool
	GoBackwards bool
	// ZeroOutputForMask makes a masked step's output zeros instead of
	// the previous step's (Keras's zero_output_for_mask; Bidirectional
	// sets it on its layers when they return sequences, as Keras does).
	ZeroOutputForMask bool
	Base

	w           recurrentWeights
	act, recAct activations.Func
	outs        []backend.Shape
}

// ClassName returns "LSTM".
func (*LSTM) ClassName() string { return "LSTM" }

func (l *LSTM) settings() recurrentSettings {
	return recurrentSettings{units: l.Units, returnSequences: l.ReturnSequences, goBackwards: l.GoBackwards,
		dropout: l.Dropout, recurrentDropout: l.RecurrentDropout, gates: 4, zeroOutputForMask: l.ZeroOutputForMask}
}

// Build checks the input and creates the weights.
func (l *LSTM) Build(inputs []backend.Shape) (backend.Shape, error) {
	s := l.settings()
	out, features, err := buildRecurrent(inputs, s, 2)
	if err != nil {
		return nil, err
	}
	if l.act, err = recurrentActivation(l.Activation, "tanh"); err != nil {
		return nil, err
	}
	if l.recAct, err = recurrentActivation(l.RecurrentActivation, "sigmoid"); err != nil {
		return nil, err
	}
	bias, err := initializers.Get(l.BiasInitializer, initializers.Constant{})
	if err != nil {
		return nil, err
	}
	if !l.NoUnitForgetBias {
		bias = unitForgetBias{l.Units}
	}
	l.w, err = l.addRecurrentWeights(features, s, l.KernelInitializer, l.RecurrentInitializer, l.NoBias, bias, backend.Shape{4 * l.Units}, l.penalties())
	l.outs = recurrentOutputs(out, s, l.ReturnState, 2)
	return out, err
}

// OutputShapes returns the output's shape, then with ReturnState h's and c's.
func (l *LSTM) OutputShapes() []backend.Shape { return l.outs }

// Call runs the sequence and returns the output.
func (l *LSTM) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallOutputs(ctx, in)[0]
}

// CallOutputs runs the sequence and returns the output, then with
// ReturnState the final h and c.
func (l *LSTM) CallOutputs(ctx *Context, in []backend.Value) []backend.Value {
	var bias backend.Value
	if l.w.bias != nil {
		bias = ctx.Weight(l.w.bias)
	}
	r, u := ctx.Weight(l.w.recurrentKernel), l.Units
	if fusable(ctx, l.Activation, l.RecurrentActivation, l.RecurrentDropout) {
		return l.callFused(ctx, in, bias, r)
	}
	out, states := unroll(ctx, l.settings(), in[0], ctx.Weight(l.w.kernel), bias, in[1:], 2, lstmStep(l.act, l.recAct, r, u))
	if !l.ReturnState {
		return []backend.Value{out}
	}
	return append([]backend.Value{out}, states...)
}

// lstmStep is one LSTM step over the input's projection xt, with
// recurrent kernel r (LSTM's and LSTMCell's).
func lstmStep(act, recAct activations.Func, r backend.Value, u int) stepFunc {
	return func(b backend.Builder, xt, h backend.Value, states []backend.Value) (backend.Value, []backend.Value) {
		z := b.Add(xt, b.MatMul(h, r))
		i := recAct(b, gate(b, z, 0, u))
		f := recAct(b, gate(b, z, 1, u))
		c := b.Add(b.Mul(f, states[1]), b.Mul(i, act(b, gate(b, z, 2, u))))
		o := recAct(b, gate(b, z, 3, u))
		hNew := b.Mul(o, act(b, c))
		return hNew, []backend.Value{hNew, c}
	}
}

// callFused runs the sequence as one Builder op, after the input dropout
// unroll would apply.
func (l *LSTM) callFused(ctx *Context, in []backend.Value, bias, r backend.Value) []backend.Value {
	x := inputDropout(ctx, in[0], l.Dropout)
	states := zeroState(ctx.B, x, l.Units, in[1:], 2)
	out, h, c := ctx.B.LSTMSequence(x, ctx.Weight(l.w.kernel), bias, r, states[0], states[1], l.settings().fusedOptions(l.ReturnState))
	if !l.ReturnState {
		return []backend.Value{out}
	}
	return []backend.Value{out, h, c}
}

// SavedGroups keeps the weights under "cell", as Keras's LSTM does.
func (l *LSTM) SavedGroups() []SavedGroup { return cellGroups(&l.Base) }

// GetConfig returns Keras's LSTM config.
func (l *LSTM) GetConfig() (serialization.Config, error) {
	act := l.Activation
	if act == "" {
		act = "tanh"
	}
	cfg, err := recurrentConfig(l.settings(), l.ReturnState, act, l.KernelInitializer, l.RecurrentInitializer, l.BiasInitializer, l.NoBias, l.penalties())
	if err != nil {
		return nil, err
	}
	cfg["recurrent_activation"] = defaultName(l.RecurrentActivation, "sigmoid")
	cfg["unit_forget_bias"] = !l.NoUnitForgetBias
	return cfg, nil
}

// defaultName returns name, or def if name is empty.
func defaultName(name, def string) string {
	if name == "" {
		return def
	}
	return activationName(name)
}

func init() {
	mustRegister("LSTM", func(r *serialization.Reader) (Layer, error) {
		rr := readRecurrent(r)
		l := &LSTM{Units: rr.units, Activation: rr.activation, NoBias: rr.noBias, KernelInitializer: rr.kernelInit,
			RecurrentInitializer: rr.recurrentInit, BiasInitializer: rr.biasInit, Dropout: rr.dropout,
			RecurrentDropout: rr.recurrentDropout, ReturnSequences: rr.returnSequences, ReturnState: rr.returnState, GoBackwards: rr.goBackwards, ZeroOutputForMask: rr.zeroOutputForMask}
		l.RecurrentActivation = readSetActivation(r, "recurrent_activation", "sigmoid")
		l.NoUnitForgetBias = !r.Bool("unit_forget_bias", true)
		l.setPenalties(rr.penalties)
		return l, nil
	})
}

func (l *LSTM) setZeroOutputForMask(on bool) { l.ZeroOutputForMask = on }

// takesUnknownDims: LSTM reads lengths other than its features from its input.
func (*LSTM) takesUnknownDims() {}

func (l *LSTM) penalties() recurrentPenalties {
	return recurrentPenalties{kernelReg: l.KernelRegularizer, recurrentReg: l.RecurrentRegularizer, biasReg: l.BiasRegularizer,
		kernelCon: l.KernelConstraint, recurrentCon: l.RecurrentConstraint, biasCon: l.BiasConstraint}
}

func (l *LSTM) setPenalties(p recurrentPenalties) {
	l.KernelRegularizer, l.RecurrentRegularizer, l.BiasRegularizer = p.kernelReg, p.recurrentReg, p.biasReg
	l.KernelConstraint, l.RecurrentConstraint, l.BiasConstraint = p.kernelCon, p.recurrentCon, p.biasCon
}
