package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// What ConvLSTM1D, ConvLSTM2D and ConvLSTM3D share, as Keras's ConvLSTM
// over its ConvLSTMCell: an LSTM whose products are convolutions. Each
// step of a sequence (batch, time, spatial..., channels) is convolved with
// kernel (spatial kernel..., channels, 4*filters), with Strides, Padding
// and DilationRate, and the previous output h (batch, spatial'...,
// filters) with recurrent_kernel (spatial kernel..., filters, 4*filters),
// stride 1 and "same" padding; the gates are input, forget, cell and
// output, as LSTM's:
//
//	z = conv(x_t, kernel) + bias + conv(h, recurrent_kernel)
//	c = σ(z_f)*c + σ(z_i)*tanh(z_c);  h = σ(z_o)*tanh(c)
//
// The loop over time is unrolled, as the other recurrent layers'. Masks
// are not supported yet: a masked input is refused.

// convLSTMSpec is a ConvLSTM layer's settings, one value per spatial
// axis where Keras has a tuple.
type convLSTMSpec struct {
	filters                                  int
	kernel, strides, dilation                []int
	padding                                  string
	activation, recurrentActivation          string
	noBias, noUnitForgetBias                 bool
	kernelInit, recurrentInit, biasInit      string
	penalties                                recurrentPenalties
	dropout, recurrentDropout                float64
	returnSequences, returnState, goBackward bool
}

// convLSTMState is what Build works out for Call.
type convLSTMState struct {
	w           recurrentWeights
	act, recAct activations.Func
	outs        []backend.Shape
}

// normalized fills Keras's defaults into zero strides, dilation and
// padding.
func (s convLSTMSpec) normalized() convLSTMSpec {
	one := func(v []int) []int {
		out := make([]int, len(v))
		for i, e := range v {
			out[i] = e
			if e == 0 {
				out[i] = 1
			}
		}
		return out
	}
	s.strides, s.dilation = one(s.strides), one(s.dilation)
	if s.padding == "" {
		s.padding = "valid"
	}
	return s
}

// stepShape is the shape of a step's output and of each state for a
// step input (batch, spatial..., channels).
func (s convLSTMSpec) stepShape(in backend.Shape) (backend.Shape, error) {
	out := backend.Shape{in[0]}
	for i, n := range in[1 : len(in)-1] {
		if n < 0 {
			out = append(out, -1)
			continue
		}
		span := (s.kernel[i]-1)*s.dilation[i] + 1
		o, _, _ := backend.ConvOutputSize(n, span, s.strides[i], backend.Padding(s.padding))
		if o <= 0 {
			return nil, fmt.Errorf("a kernel of %v (dilation %v) is larger than the input's steps %v", s.kernel, s.dilation, in)
		}
		out = append(out, o)
	}
	return append(out, s.filters), nil
}

// build checks the input (batch, time, spatial..., channels) and any
// initial states after it, and creates the weights.
func (s convLSTMSpec) build(c *Base, inputs []backend.Shape) (st convLSTMState, err error) {
	n := len(s.kernel)
	if len(inputs) == 0 {
		return st, fmt.Errorf("expects a sequence input")
	}
	in := inputs[0]
	if len(in) != n+3 || in[1] == 0 || in[n+2] <= 0 {
		return st, fmt.Errorf("expected an input of shape (batch, time, %s, channels), received %v", map[int]string{1: "steps", 2: "rows, cols", 3: "depth, rows, cols"}[n], in)
	}
	if s.filters <= 0 {
		return st, fmt.Errorf("filters must be positive, got %d", s.filters)
	}
	for i := range n {
		if s.kernel[i] <= 0 || s.strides[i] <= 0 || s.dilation[i] <= 0 {
			return st, fmt.Errorf("kernel size, strides and dilation rate must be positive, got %v, %v and %v", s.kernel, s.strides, s.dilation)
		}
	}
	if maxOf(s.strides) > 1 && maxOf(s.dilation) > 1 {
		return st, fmt.Errorf("strides %v > 1 cannot be used with dilation_rate %v > 1, as in Keras", s.strides, s.dilation)
	}
	if s.padding != "valid" && s.padding != "same" {
		return st, fmt.Errorf("padding must be \"valid\" or \"same\", got %q", s.padding)
	}
	if s.dropout < 0 || s.dropout >= 1 || s.recurrentDropout < 0 || s.recurrentDropout >= 1 {
		return st, fmt.Errorf("dropout and recurrent_dropout must be in [0, 1), got %g and %g", s.dropout, s.recurrentDropout)
	}
	state, err := s.stepShape(append(backend.Shape{in[0]}, in[2:]...))
	if err != nil {
		return st, err
	}
	if states := inputs[1:]; len(states) > 0 {
		if len(states) != 2 {
			return st, fmt.Errorf("expects 2 initial states (h and c) after the sequence, received %d", len(states))
		}
		for i, given := range states {
			if !sameDims(given[1:], state[1:]) {
				return st, fmt.Errorf("initial state %d has shape %v, expected %v", i, given, state)
			}
		}
	}
	if st.act, err = recurrentActivation(s.activation, "tanh"); err != nil {
		return st, err
	}
	if st.recAct, err = recurrentActivation(s.recurrentActivation, "sigmoid"); err != nil {
		return st, err
	}
	kinit, err := initializers.Get(s.kernelInit, initializers.GlorotUniform{})
	if err != nil {
		return st, err
	}
	rinit, err := initializers.Get(s.recurrentInit, initializers.Orthogonal{})
	if err != nil {
		return st, err
	}
	var bias initializers.Initializer = unitForgetBias{s.filters}
	if s.noUnitForgetBias {
		if bias, err = initializers.Get(s.biasInit, initializers.Constant{}); err != nil {
			return st, err
		}
	}
	gates := 4 * s.filters
	if st.w.kernel, err = c.AddWeight("kernel", append(backend.Shape(s.kernel).Clone(), in[n+2], gates), kinit); err != nil {
		return st, err
	}
	if st.w.recurrentKernel, err = c.AddWeight("recurrent_kernel", append(backend.Shape(s.kernel).Clone(), s.filters, gates), rinit); err != nil {
		return st, err
	}
	if !s.noBias {
		if st.w.bias, err = c.AddWeight("bias", backend.Shape{gates}, bias); err != nil {
			return st, err
		}
	}
	if err := s.penalties.regularize(st.w); err != nil {
		return st, err
	}
	out := state
	if s.returnSequences {
		out = append(backend.Shape{in[0], in[1]}, state[1:]...)
	}
	st.outs = []backend.Shape{out}
	if s.returnState {
		st.outs = append(st.outs, state, state)
	}
	return st, nil
}

// sameDims reports whether two shapes agree where both are known.
func sameDims(a, b backend.Shape) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && a[i] >= 0 && b[i] >= 0 {
			return false
		}
	}
	return true
}

// lastAxis takes n entries of v's last axis from from.
func lastAxis(b backend.Builder, v backend.Value, from, n int) backend.Value {
	s := v.Shape()
	begin, size := make([]int, len(s)), s.Clone()
	begin[len(s)-1], size[len(s)-1] = from, n
	return b.Slice(v, begin, size)
}

// call runs the sequence: the output, then with returnState the final h
// and c.
func (s convLSTMSpec) call(ctx *Context, st convLSTMState, in []backend.Value) []backend.Value {
	b := ctx.B
	fail := func(err error) []backend.Value {
		out := make([]backend.Value, len(st.outs))
		for i := range out {
			out[i] = b.Fail(nil, err)
		}
		return out
	}
	if ctx.Mask(0) != nil {
		return fail(fmt.Errorf("a ConvLSTM layer does not take masks yet: remove the Masking layer (or the mask) before it"))
	}
	x := in[0]
	xs := x.Shape()
	n := len(s.kernel)
	stepIn := append(backend.Shape{xs[0]}, xs[2:]...)
	state, err := s.stepShape(stepIn)
	if err != nil {
		return fail(err)
	}
	f := s.filters
	kernel, recurrent := ctx.Weight(st.w.kernel), ctx.Weight(st.w.recurrentKernel)
	var bias backend.Value
	if st.w.bias != nil {
		bias = ctx.Weight(st.w.bias)
	}
	inOpts := ops.ConvOptions{Strides: s.strides, Padding: backend.Padding(s.padding), DilationRate: s.dilation}
	recOpts := ops.ConvOptions{Padding: backend.Same}
	// Keras's DropoutRNNCell: one mask per gate, drawn once per call, the
	// same at every step.
	var dropIn, dropRec []backend.Value
	for range 4 {
		if ctx.Training && s.dropout > 0 {
			dropIn = append(dropIn, dropoutMask(b, stepIn, s.dropout))
		}
		if ctx.Training && s.recurrentDropout > 0 {
			dropRec = append(dropRec, dropoutMask(b, state, s.recurrentDropout))
		}
	}
	// conv convolves v with every gate's kernel at once, or, with
	// dropout masks, each gate's masked v with its own kernel.
	conv := func(v, k backend.Value, masks []backend.Value, o ops.ConvOptions) backend.Value {
		if masks == nil {
			return ops.Conv(b, v, k, o)
		}
		parts := make([]backend.Value, 4)
		for g := range parts {
			parts[g] = ops.Conv(b, b.Mul(v, masks[g]), lastAxis(b, k, g*f, f), o)
		}
		return b.Concat(n+1, parts...)
	}
	h, c := backend.Value(nil), backend.Value(nil)
	if len(in) == 3 {
		h, c = in[1], in[2]
	} else {
		zeros := b.Constant(make([]float64, state.Size()), state)
		h, c = zeros, zeros
	}
	steps := xs[1]
	var outs []backend.Value
	for i := range steps {
		t := i
		if s.goBackward {
			t = steps - 1 - i
		}
		begin, size := make([]int, len(xs)), xs.Clone()
		begin[1], size[1] = t, 1
		xt := b.Reshape(b.Slice(x, begin, size), stepIn)
		z := b.Add(conv(xt, kernel, dropIn, inOpts), conv(h, recurrent, dropRec, recOpts))
		if bias != nil {
			z = b.Add(z, bias)
		}
		gi, gf := st.recAct(b, lastAxis(b, z, 0, f)), st.recAct(b, lastAxis(b, z, f, f))
		c = b.Add(b.Mul(gf, c), b.Mul(gi, st.act(b, lastAxis(b, z, 2*f, f))))
		h = b.Mul(st.recAct(b, lastAxis(b, z, 3*f, f)), st.act(b, c))
		if s.returnSequences {
			outs = append(outs, b.Reshape(h, append(backend.Shape{xs[0], 1}, state[1:]...)))
		}
	}
	out := h
	if s.returnSequences {
		out = outs[0]
		if len(outs) > 1 {
			out = b.Concat(1, outs...)
		}
	}
	if s.returnState {
		return []backend.Value{out, h, c}
	}
	return []backend.Value{out}
}

// config is Keras's config of the ConvLSTM layer.
func (s convLSTMSpec) config() (serialization.Config, error) {
	cfg := serialization.Config{
		"filters": s.filters, "kernel_size": s.kernel, "strides": s.strides, "padding": s.padding,
		"data_format": "channels_last", "dilation_rate": s.dilation,
		"activation": activationName(orDefault(s.activation, "tanh")), "recurrent_activation": activationName(orDefault(s.recurrentActivation, "sigmoid")),
		"unit_forget_bias": !s.noUnitForgetBias, "seed": nil,
		"return_sequences": s.returnSequences, "return_state": s.returnState, "go_backwards": s.goBackward,
		"stateful": false, "unroll": false, "zero_output_for_mask": false,
	}
	rc, err := recurrentConfig(recurrentSettings{dropout: s.dropout, recurrentDropout: s.recurrentDropout}, false, "", s.kernelInit, s.recurrentInit, s.biasInit, s.noBias, s.penalties)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"use_bias", "kernel_initializer", "recurrent_initializer", "bias_initializer", "dropout", "recurrent_dropout", "activity_regularizer",
		"kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint"} {
		if v, ok := rc[k]; ok {
			cfg[k] = v
		}
	}
	return cfg, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// readConvLSTM reads a ConvLSTM layer over n spatial axes from Keras's
// config.
func readConvLSTM(r *serialization.Reader, n int) convLSTMSpec {
	r.NotNull("kernel_size", "strides", "padding", "dilation_rate")
	tuple := func(key string, def int) []int { return readTuple(r, key, n, def) }
	s := convLSTMSpec{filters: r.PositiveInt("filters", 0), kernel: tuple("kernel_size", 0), strides: tuple("strides", 1), dilation: tuple("dilation_rate", 1),
		padding: r.String("padding", "valid")}
	r.Expect("data_format", "channels_last", "kerasgo's convolutions take channels_last input")
	r.Expect("stateful", false, "stateful RNNs are not supported")
	r.Expect("zero_output_for_mask", false, "ConvLSTM layers take no masks yet")
	r.Ignore("unroll", "seed")
	s.activation = readSetActivation(r, "activation", "tanh")
	s.recurrentActivation = readSetActivation(r, "recurrent_activation", "sigmoid")
	s.noBias = !r.Bool("use_bias", true)
	s.noUnitForgetBias = !r.Bool("unit_forget_bias", true)
	s.kernelInit, s.recurrentInit, s.biasInit = readInitializer(r, "kernel_initializer"), readInitializer(r, "recurrent_initializer"), readInitializer(r, "bias_initializer")
	s.dropout, s.recurrentDropout = r.Float("dropout", 0), r.Float("recurrent_dropout", 0)
	s.returnSequences, s.returnState, s.goBackward = r.Bool("return_sequences", false), r.Bool("return_state", false), r.Bool("go_backwards", false)
	s.penalties = recurrentPenalties{
		kernelReg: readRegularizer(r, "kernel_regularizer"), recurrentReg: readRegularizer(r, "recurrent_regularizer"), biasReg: readRegularizer(r, "bias_regularizer"),
		kernelCon: readConstraint(r, "kernel_constraint"), recurrentCon: readConstraint(r, "recurrent_constraint"), biasCon: readConstraint(r, "bias_constraint"),
	}
	return s
}
