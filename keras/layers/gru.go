package layers

import (
	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// GRU is the gated recurrent unit layer, like keras.layers.GRU, with
// Keras 3's defaults (reset_after=True, recurrent_activation "sigmoid")
// and weight layout: kernel (features, 3*units), recurrent_kernel
// (units, 3*units), gates in the order update (z), reset (r), candidate;
// the bias is (2, 3*units), an input and a recurrent row, or (3*units)
// with NoResetAfter. Per step, with reset_after:
//
//	x = x·kernel + bias[0];  m = h·recurrent_kernel + bias[1]
//	z = σ(x_z + m_z);  r = σ(x_r + m_r);  hh = tanh(x_h + r*m_h)
//	h = z*h + (1-z)*hh
//
// and without it the reset gate multiplies h before its product:
// hh = tanh(x_h + (r*h)·recurrent_kernel_h). Applied to two inputs, the
// second is the initial state.
type GRU struct {
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
	// NoResetAfter applies the reset gate before the recurrent product
	// (Keras's reset_after=False, the original GRU).
	NoResetAfter     bool
	Dropout          float64
	RecurrentDropout float64
	ReturnSequences  bool
	ReturnState      bool // adds the final state as a second output (layers.ApplyOutputs)
	GoBackwards      bool
	// ZeroOutputForMask makes a masked step's output zeros instead of
	// the previous step's (Keras's zero_output_for_mask; Bidirectional
	// sets it on its layers when they return sequences, as Keras does).
	ZeroOutputForMask bool
	Base

	w           recurrentWeights
	act, recAct activations.Func
	outs        []backend.Shape
}

// ClassName returns "GRU".
func (*GRU) ClassName() string { return "GRU" }

func (l *GRU) settings() recurrentSettings {
	return recurrentSettings{units: l.Units, returnSequences: l.ReturnSequences, goBackwards: l.GoBackwards,
		dropout: l.Dropout, recurrentDropout: l.RecurrentDropout, gates: 3, zeroOutputForMask: l.ZeroOutputForMask}
}

// Build checks the input and creates the weights.
func (l *GRU) Build(inputs []backend.Shape) (backend.Shape, error) {
	s := l.settings()
	out, features, err := buildRecurrent(inputs, s, 1)
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
	biasShape := backend.Shape{2, 3 * l.Units}
	if l.NoResetAfter {
		biasShape = backend.Shape{3 * l.Units}
	}
	l.w, err = l.addRecurrentWeights(features, s, l.KernelInitializer, l.RecurrentInitializer, l.NoBias, bias, biasShape, l.penalties())
	l.outs = recurrentOutputs(out, s, l.ReturnState, 1)
	return out, err
}

// OutputShapes returns the output's shape, then with ReturnState the state's.
func (l *GRU) OutputShapes() []backend.Shape { return l.outs }

// Call runs the sequence and returns the output.
func (l *GRU) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallOutputs(ctx, in)[0]
}

// CallOutputs runs the sequence and returns the output, then with
// ReturnState the final state.
func (l *GRU) CallOutputs(ctx *Context, in []backend.Value) []backend.Value {
	b, u := ctx.B, l.Units
	r := ctx.Weight(l.w.recurrentKernel)
	inputBias, recurrentBias := gruBiases(ctx, l.w.bias, u, !l.NoResetAfter)
	if !l.NoResetAfter && fusable(ctx, l.Activation, l.RecurrentActivation, l.RecurrentDropout) {
		x := inputDropout(ctx, in[0], l.Dropout)
		h0 := zeroState(b, x, u, in[1:], 1)
		out, h := b.GRUSequence(x, ctx.Weight(l.w.kernel), inputBias, r, recurrentBias, h0[0], l.settings().fusedOptions(l.ReturnState))
		if !l.ReturnState {
			return []backend.Value{out}
		}
		return []backend.Value{out, h}
	}
	step := gruStep(l.act, l.recAct, r, recurrentBias, u, !l.NoResetAfter)
	out, states := unroll(ctx, l.settings(), in[0], ctx.Weight(l.w.kernel), inputBias, in[1:], 1, step)
	if !l.ReturnState {
		return []backend.Value{out}
	}
	return append([]backend.Value{out}, states...)
}

// gruBiases reads a GRU's bias: with resetAfter, (2, 3*units) rows for
// the input and the recurrent product; else (3*units) for the input. nil
// without a bias.
func gruBiases(ctx *Context, bias *Weight, u int, resetAfter bool) (input, recurrent backend.Value) {
	if bias == nil {
		return nil, nil
	}
	b, both := ctx.B, ctx.Weight(bias)
	if !resetAfter {
		return both, nil
	}
	input = b.Reshape(b.Slice(both, []int{0, 0}, []int{1, 3 * u}), backend.Shape{3 * u})
	recurrent = b.Reshape(b.Slice(both, []int{1, 0}, []int{1, 3 * u}), backend.Shape{3 * u})
	return input, recurrent
}

// gruStep is one GRU step over the input's projection xt (with the input
// bias), with recurrent kernel r and, with resetAfter, the recurrent bias
// (GRU's and GRUCell's).
func gruStep(act, recAct activations.Func, r, recurrentBias backend.Value, u int, resetAfter bool) stepFunc {
	return func(b backend.Builder, xt, h backend.Value, states []backend.Value) (backend.Value, []backend.Value) {
		var m backend.Value
		if !resetAfter {
			m = b.MatMul(h, columns(b, r, 0, 2*u))
		} else {
			m = b.MatMul(h, r)
			if recurrentBias != nil {
				m = b.Add(m, recurrentBias)
			}
		}
		z := recAct(b, b.Add(gate(b, xt, 0, u), gate(b, m, 0, u)))
		reset := recAct(b, b.Add(gate(b, xt, 1, u), gate(b, m, 1, u)))
		var rh backend.Value
		if !resetAfter {
			rh = b.MatMul(b.Mul(reset, h), columns(b, r, 2*u, u))
		} else {
			rh = b.Mul(reset, gate(b, m, 2, u))
		}
		hh := act(b, b.Add(gate(b, xt, 2, u), rh))
		prev := states[0]
		// h = z*prev + (1-z)*hh = hh + z*(prev-hh)
		hNew := b.Add(hh, b.Mul(z, b.Sub(prev, hh)))
		return hNew, []backend.Value{hNew}
	}
}

// SavedGroups keeps the weights under "cell", as Keras's GRU does.
func (l *GRU) SavedGroups() []SavedGroup { return cellGroups(&l.Base) }

// GetConfig returns Keras's GRU config.
func (l *GRU) GetConfig() (serialization.Config, error) {
	cfg, err := recurrentConfig(l.settings(), l.ReturnState, defaultName(l.Activation, "tanh"), l.KernelInitializer, l.RecurrentInitializer, l.BiasInitializer, l.NoBias, l.penalties())
	if err != nil {
		return nil, err
	}
	cfg["recurrent_activation"] = defaultName(l.RecurrentActivation, "sigmoid")
	cfg["reset_after"] = !l.NoResetAfter
	cfg["use_cudnn"] = "auto"
	return cfg, nil
}

func init() {
	mustRegister("GRU", func(r *serialization.Reader) (Layer, error) {
		rr := readRecurrent(r)
		l := &GRU{Units: rr.units, Activation: rr.activation, NoBias: rr.noBias, KernelInitializer: rr.kernelInit,
			RecurrentInitializer: rr.recurrentInit, BiasInitializer: rr.biasInit, Dropout: rr.dropout,
			RecurrentDropout: rr.recurrentDropout, ReturnSequences: rr.returnSequences, ReturnState: rr.returnState, GoBackwards: rr.goBackwards, ZeroOutputForMask: rr.zeroOutputForMask}
		l.RecurrentActivation = readSetActivation(r, "recurrent_activation", "sigmoid")
		l.NoResetAfter = !r.Bool("reset_after", true)
		r.Ignore("use_cudnn")
		l.setPenalties(rr.penalties)
		return l, nil
	})
}

func (l *GRU) setZeroOutputForMask(on bool) { l.ZeroOutputForMask = on }

// takesUnknownDims: GRU reads lengths other than its features from its input.
func (*GRU) takesUnknownDims() {}

func (l *GRU) penalties() recurrentPenalties {
	return recurrentPenalties{kernelReg: l.KernelRegularizer, recurrentReg: l.RecurrentRegularizer, biasReg: l.BiasRegularizer,
		kernelCon: l.KernelConstraint, recurrentCon: l.RecurrentConstraint, biasCon: l.BiasConstraint}
}

func (l *GRU) setPenalties(p recurrentPenalties) {
	l.KernelRegularizer, l.RecurrentRegularizer, l.BiasRegularizer = p.kernelReg, p.recurrentReg, p.biasReg
	l.KernelConstraint, l.RecurrentConstraint, l.BiasConstraint = p.kernelCon, p.recurrentCon, p.biasCon
}
