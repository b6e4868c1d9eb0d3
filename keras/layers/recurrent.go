package layers

import (
	"fmt"
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// What SimpleRNN, LSTM and GRU share: Keras's RNN wrapper settings, the
// weights (kernel, recurrent_kernel, bias) and the loop over time.
//
// The loop is unrolled: the sequence length is static, so Call emits one
// step's ops per time step, and every engine differentiates the unrolled
// graph with the ops it already has (no scan primitive in the op set).
// The exceptions are the common LSTM and GRU (default activations, no
// mask, no recurrent dropout, and for the GRU reset_after), which call
// Builder.LSTMSequence and GRUSequence, one op over the sequence that an
// engine may fuse.
// Each step multiplies its input by the kernel and the previous output by
// the recurrent kernel.

// recurrentSettings are the options of Keras's RNN base class that the
// three layers share.
type recurrentSettings struct {
	units            int
	returnSequences  bool
	goBackwards      bool
	dropout          float64
	recurrentDropout float64
	gates            int // column blocks of the kernel: 1, 3 or 4
	// zeroOutputForMask: a masked step outputs zeros (else the previous
	// output).
	zeroOutputForMask bool
}

// recurrentPenalties are the regularizers and constraints of a recurrent
// layer's kernel, recurrent kernel and bias (Keras's kernel_regularizer,
// recurrent_regularizer, bias_regularizer and the three constraints).
type recurrentPenalties struct {
	kernelReg, recurrentReg, biasReg regularizers.Regularizer
	kernelCon, recurrentCon, biasCon constraints.Constraint
}

// regularize attaches the penalties to the weights.
func (p recurrentPenalties) regularize(w recurrentWeights) error {
	if err := regularize(w.kernel, "kernel", p.kernelReg, p.kernelCon); err != nil {
		return err
	}
	if err := regularize(w.recurrentKernel, "recurrent", p.recurrentReg, p.recurrentCon); err != nil {
		return err
	}
	if w.bias == nil && (p.biasReg != nil || p.biasCon != nil) {
		return fmt.Errorf("a bias regularizer or constraint was given with use_bias=False (NoBias): drop it, or keep the bias")
	}
	return regularize(w.bias, "bias", p.biasReg, p.biasCon)
}

// recurrentWeights are a recurrent layer's variables.
type recurrentWeights struct {
	kernel, recurrentKernel, bias *Weight
}

// stepFunc computes one time step from the input's projection xt (batch,
// gates*units), the previous output h as the recurrent product should see
// it (after recurrent dropout) and the states (h first, undropped),
// returning the step's output and the next states.
type stepFunc func(b backend.Builder, xt, h backend.Value, states []backend.Value) (out backend.Value, next []backend.Value)

// recurrentOutputs are the shapes of a recurrent layer's outputs: the
// output, then with ReturnState one (batch, units) per state.
func recurrentOutputs(out backend.Shape, s recurrentSettings, returnState bool, nStates int) []backend.Shape {
	shapes := []backend.Shape{out}
	if returnState {
		for range nStates {
			shapes = append(shapes, backend.Shape{out[0], s.units})
		}
	}
	return shapes
}

// buildRecurrent checks a (batch, steps, features) input and any initial
// states (batch, units) after it, and returns the output shape and the
// feature count.
func buildRecurrent(inputs []backend.Shape, s recurrentSettings, nStates int) (backend.Shape, int, error) {
	if len(inputs) == 0 {
		return nil, 0, fmt.Errorf("expects a sequence input")
	}
	in := inputs[0]
	if s.units <= 0 {
		return nil, 0, fmt.Errorf("units must be positive, got %d", s.units)
	}
	if len(in) != 3 || in[1] == 0 || in[1] < -1 || in[2] <= 0 { // steps may be -1: any length
		return nil, 0, fmt.Errorf("expected an input of shape (batch, timesteps, features), received %v: a recurrent layer reads sequences (add a time axis with Reshape, or use return_sequences on the layer before)", in)
	}
	if s.dropout < 0 || s.dropout >= 1 || s.recurrentDropout < 0 || s.recurrentDropout >= 1 {
		return nil, 0, fmt.Errorf("dropout and recurrent_dropout must be in [0, 1), got %g and %g", s.dropout, s.recurrentDropout)
	}
	if states := inputs[1:]; len(states) > 0 {
		if len(states) != nStates {
			return nil, 0, fmt.Errorf("expects %d initial state(s) after the sequence, received %d", nStates, len(states))
		}
		for i, st := range states {
			if len(st) != 2 || st[1] != s.units {
				return nil, 0, fmt.Errorf("initial state %d has shape %v, expected (batch, %d)", i, st, s.units)
			}
		}
	}
	if s.returnSequences {
		return backend.Shape{in[0], in[1], s.units}, in[2], nil
	}
	return backend.Shape{in[0], s.units}, in[2], nil
}

// addRecurrentWeights creates kernel (features, gates*units),
// recurrent_kernel (units, gates*units) and, unless noBias, a bias of
// biasShape.
func (c *Base) addRecurrentWeights(features int, s recurrentSettings, kernelInit, recurrentInit string, noBias bool, bias initializers.Initializer, biasShape backend.Shape, p recurrentPenalties) (recurrentWeights, error) {
	var w recurrentWeights
	kinit, err := initializers.Get(kernelInit, initializers.GlorotUniform{})
	if err != nil {
		return w, err
	}
	rinit, err := initializers.Get(recurrentInit, initializers.Orthogonal{})
	if err != nil {
		return w, err
	}
	if c.Common().weights != nil && len(c.weights) > 0 && c.weights[0].Shape[0] != features {
		return w, fmt.Errorf("expected %d features per step, as when the layer was built, but received %d", c.weights[0].Shape[0], features)
	}
	if w.kernel, err = c.AddWeight("kernel", backend.Shape{features, s.gates * s.units}, kinit); err != nil {
		return w, err
	}
	if w.recurrentKernel, err = c.AddWeight("recurrent_kernel", backend.Shape{s.units, s.gates * s.units}, rinit); err != nil {
		return w, err
	}
	if !noBias {
		if w.bias, err = c.AddWeight("bias", biasShape, bias); err != nil {
			return w, err
		}
	}
	return w, p.regularize(w)
}

// recurrentActivation resolves an activation setting whose empty value
// means def.
func recurrentActivation(name, def string) (activations.Func, error) {
	if name == "" {
		name = def
	}
	if name == "glu" {
		return nil, fmt.Errorf("activation %q halves the units, which a recurrent cell's state cannot: use another activation", name)
	}
	return activations.Get(name)
}

// unroll runs step over the time steps of x (batch, steps, features),
// each with its input projection x_t·kernel (+ inputBias), from the
// initial states (zeros unless given).
// It returns the last output, or all outputs (batch, steps, units) with
// returnSequences, in the order processed (reversed with goBackwards, as
// in Keras). In training, dropout multiplies the inputs and
// recurrentDropout the states entering each step by masks drawn once per
// call, as Keras's DropoutRNNCell. With a mask (ctx.Mask(0), batch x
// steps), a padding step leaves the states as they were and outputs the
// previous output (zeros before the first data step), as Keras's rnn
// with zero_output_for_mask=False, or zeros with it.
func unroll(ctx *Context, s recurrentSettings, x, kernel, inputBias backend.Value, initial []backend.Value, nStates int, step stepFunc) (backend.Value, []backend.Value) {
	b := ctx.B
	d := x.Shape()
	batch, steps, features := d[0], d[1], d[2]
	x = inputDropout(ctx, x, s.dropout)
	// Each step's input projection is taken from its own slice of x: a
	// slice's gradient is as large as what it slices, so slicing x
	// (features wide) costs less than slicing one product for all steps
	// (gates*units wide), which the engines' slice gradients would
	// allocate and add once per step.
	project := func(t int) backend.Value {
		xt := b.Reshape(b.Slice(x, []int{0, t, 0}, []int{batch, 1, features}), backend.Shape{batch, features})
		p := b.MatMul(xt, kernel)
		if inputBias != nil {
			p = b.Add(p, inputBias)
		}
		return p
	}
	states := zeroState(b, x, s.units, initial, nStates)
	var recMask backend.Value
	if ctx.Training && s.recurrentDropout > 0 {
		recMask = dropoutMask(b, backend.Shape{batch, s.units}, s.recurrentDropout)
	}
	return recur(ctx, s, batch, steps, states, func(t int, states []backend.Value) (backend.Value, []backend.Value) {
		h := states[0]
		if recMask != nil {
			h = b.Mul(h, recMask)
		}
		return step(b, project(t), h, states)
	})
}

// recur runs stepAt over time steps 0..steps-1 (in reverse with
// goBackwards) from states, masking as unroll says, and returns the last
// output (batch, s.units), or all of them (batch, steps, s.units) with
// returnSequences, and the final states.
func recur(ctx *Context, s recurrentSettings, batch, steps int, states []backend.Value, stepAt func(t int, states []backend.Value) (backend.Value, []backend.Value)) (backend.Value, []backend.Value) {
	b := ctx.B
	mask := ctx.Mask(0)
	var outs []backend.Value
	var out, zeroOut backend.Value
	if mask != nil {
		zeroOut = b.Constant(make([]float64, batch*s.units), backend.Shape{batch, s.units})
		out = zeroOut
	}
	for i := range steps {
		t := i
		if s.goBackwards {
			t = steps - 1 - i
		}
		if mask == nil {
			out, states = stepAt(t, states)
		} else {
			m := stepMask(b, mask, t)
			next, nextStates := stepAt(t, states)
			if s.zeroOutputForMask {
				out = keep(b, m, next, zeroOut)
			} else {
				out = keep(b, m, next, out)
			}
			for j := range states {
				nextStates[j] = keep(b, m, nextStates[j], states[j])
			}
			states = nextStates
		}
		if s.returnSequences {
			outs = append(outs, b.Reshape(out, backend.Shape{batch, 1, s.units}))
		}
	}
	if s.returnSequences {
		if len(outs) == 1 {
			return outs[0], states
		}
		return b.Concat(1, outs...), states
	}
	return out, states
}

// fusedOptions are the options of the engine's whole-sequence op.
func (s recurrentSettings) fusedOptions(returnState bool) backend.RecurrentOptions {
	return backend.RecurrentOptions{ReturnSequences: s.returnSequences, GoBackwards: s.goBackwards, ReturnState: returnState}
}

// fusable says whether a recurrent layer's call can be the engine's
// whole-sequence op (Builder.LSTMSequence, GRUSequence): Keras's default
// activations (tanh, and sigmoid for the gates), no mask and no recurrent
// dropout in training. Other calls take the general loop, unroll.
func fusable(ctx *Context, activation, recurrentActivation string, recurrentDropout float64) bool {
	return (activation == "" || activation == "tanh") &&
		(recurrentActivation == "" || recurrentActivation == "sigmoid") &&
		ctx.Mask(0) == nil && !(ctx.Training && recurrentDropout > 0)
}

// zeroState returns the n initial states given to the layer, or zeros
// (batch, units) for each.
func zeroState(b backend.Builder, x backend.Value, units int, given []backend.Value, n int) []backend.Value {
	if len(given) == n {
		return given
	}
	batch := x.Shape()[0]
	zeros := b.Constant(make([]float64, batch*units), backend.Shape{batch, units})
	states := make([]backend.Value, n)
	for i := range states {
		states[i] = zeros
	}
	return states
}

// inputDropout is Keras's DropoutRNNCell on the inputs: in training, one
// mask per sequence row and feature, the same at every step.
func inputDropout(ctx *Context, x backend.Value, rate float64) backend.Value {
	if !ctx.Training || rate <= 0 {
		return x
	}
	d := x.Shape()
	return ctx.B.Mul(x, dropoutMask(ctx.B, backend.Shape{d[0], 1, d[2]}, rate))
}

// dropoutMask is Keras's dropout of a tensor of ones: 0 with probability
// rate, else 1/(1-rate).
func dropoutMask(b backend.Builder, s backend.Shape, rate float64) backend.Value {
	keep := b.Greater(b.RandomUniform(s), b.Scalar(rate))
	return b.Mul(keep, b.Scalar(1/(1-rate)))
}

// gate returns block i of a (batch, gates*units) value.
func gate(b backend.Builder, z backend.Value, i, units int) backend.Value {
	return b.Slice(z, []int{0, i * units}, []int{z.Shape()[0], units})
}

// columns returns columns [i*units, (i+1)*units) of a matrix.
func columns(b backend.Builder, m backend.Value, from, n int) backend.Value {
	return b.Slice(m, []int{0, from}, []int{m.Shape()[0], n})
}

// SavedGroup is a part of a layer's variables that Keras's weights file
// keeps in a sub-layer's group, at Path below the layer's own (an RNN
// layer's cell keeps them at "cell").
type SavedGroup struct {
	Path    string
	Weights []*Weight
}

// SavedGrouper is implemented by layers whose Keras counterpart keeps its
// variables in sub-layers; the layer's own group is then empty.
type SavedGrouper interface {
	SavedGroups() []SavedGroup
}

// cellGroups keeps all of a recurrent layer's variables under "cell", as
// Keras's LSTM, GRU and SimpleRNN do.
func cellGroups(c *Base) []SavedGroup {
	return []SavedGroup{{Path: "cell", Weights: c.Weights()}}
}

// recurrentConfig is the part of the three layers' Keras configs about
// the RNN wrapper, kernels and dropout.
func recurrentConfig(s recurrentSettings, returnState bool, activation, kernelInit, recurrentInit, biasInit string, noBias bool, p recurrentPenalties) (serialization.Config, error) {
	cfg := serialization.Config{
		"units": s.units, "return_sequences": s.returnSequences, "return_state": returnState, "go_backwards": s.goBackwards,
		"stateful": false, "unroll": false, "zero_output_for_mask": s.zeroOutputForMask,
		"activation": activationName(activation), "use_bias": !noBias,
		"dropout": s.dropout, "recurrent_dropout": s.recurrentDropout, "seed": nil, "activity_regularizer": nil,
	}
	for key, init := range map[string][2]string{"kernel_initializer": {kernelInit, "glorot_uniform"}, "recurrent_initializer": {recurrentInit, "orthogonal"}, "bias_initializer": {biasInit, "zeros"}} {
		o, err := initializers.Serialize(init[0], init[1])
		if err != nil {
			return nil, err
		}
		cfg[key] = o
	}
	return cfg, penaltiesConfig(cfg, map[string]regularizers.Regularizer{"kernel": p.kernelReg, "recurrent": p.recurrentReg, "bias": p.biasReg},
		map[string]constraints.Constraint{"kernel": p.kernelCon, "recurrent": p.recurrentCon, "bias": p.biasCon})
}

// recurrentReader reads what recurrentConfig writes.
type recurrentReader struct {
	units                                int
	returnSequences, goBackwards, noBias bool
	returnState, zeroOutputForMask       bool
	dropout, recurrentDropout            float64
	activation                           string
	kernelInit, recurrentInit, biasInit  string
	penalties                            recurrentPenalties
}

func readRecurrent(r *serialization.Reader) recurrentReader {
	var rr recurrentReader
	rr.units = r.PositiveInt("units", 0)
	rr.returnSequences = r.Bool("return_sequences", false)
	rr.goBackwards = r.Bool("go_backwards", false)
	rr.returnState = r.Bool("return_state", false)
	r.Expect("stateful", false, "stateful RNNs are not supported")
	r.Ignore("unroll") // kerasgo chooses: the engine's whole-sequence op, or an unrolled loop
	rr.zeroOutputForMask = r.Bool("zero_output_for_mask", false)
	rr.activation = readSetActivation(r, "activation", "tanh")
	rr.noBias = !r.Bool("use_bias", true)
	rr.kernelInit = readInitializer(r, "kernel_initializer")
	rr.recurrentInit = readInitializer(r, "recurrent_initializer")
	rr.biasInit = readInitializer(r, "bias_initializer")
	rr.dropout = r.Float("dropout", 0)
	rr.recurrentDropout = r.Float("recurrent_dropout", 0)
	r.Ignore("seed")
	rr.penalties = recurrentPenalties{
		kernelReg: readRegularizer(r, "kernel_regularizer"), recurrentReg: readRegularizer(r, "recurrent_regularizer"), biasReg: readRegularizer(r, "bias_regularizer"),
		kernelCon: readConstraint(r, "kernel_constraint"), recurrentCon: readConstraint(r, "recurrent_constraint"), biasCon: readConstraint(r, "bias_constraint"),
	}
	return rr
}

// unitForgetBias is LSTM's default bias: zeros with ones for the forget
// gate (Keras's unit_forget_bias=True).
type unitForgetBias struct{ units int }

func (unitForgetBias) Name() string { return "zeros" }

func (u unitForgetBias) Init(s backend.Shape, _ *rand.Rand) []float32 {
	v := make([]float32, s.Size())
	for i := u.units; i < 2*u.units && i < len(v); i++ {
		v[i] = 1
	}
	return v
}

// readSetActivation reads an activation whose absence means def and
// whose "linear" must stay linear (the layers' empty value means def).
func readSetActivation(r *serialization.Reader, key, def string) string {
	a := readActivation(r, key)
	if _, set := r.Value(key); !set {
		return def
	}
	if a == "" {
		return "linear"
	}
	return a
}

// sequenceMask is the mask of a recurrent layer's output: the input's
// with ReturnSequences (in the order of the output), none otherwise.
func sequenceMask(b backend.Builder, s recurrentSettings, masks []backend.Value) backend.Value {
	if !s.returnSequences || len(masks) == 0 || masks[0] == nil {
		return nil
	}
	if s.goBackwards {
		m := masks[0]
		ms := m.Shape()
		return b.Reshape(reverseSteps(b, b.Reshape(m, backend.Shape{ms[0], ms[1], 1})), ms)
	}
	return masks[0]
}

// ComputeMask passes the input's mask on with ReturnSequences.
func (l *LSTM) ComputeMask(ctx *Context, _, m []backend.Value) backend.Value {
	return sequenceMask(ctx.B, l.settings(), m)
}

// ComputeMask passes the input's mask on with ReturnSequences.
func (l *GRU) ComputeMask(ctx *Context, _, m []backend.Value) backend.Value {
	return sequenceMask(ctx.B, l.settings(), m)
}

// ComputeMask passes the input's mask on with ReturnSequences.
func (l *SimpleRNN) ComputeMask(ctx *Context, _, m []backend.Value) backend.Value {
	return sequenceMask(ctx.B, l.settings(), m)
}
