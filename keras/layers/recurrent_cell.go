package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// What SimpleRNNCell, LSTMCell and GRUCell share: the weights of the
// recurrent layer they are the step of (kernel, recurrent_kernel, bias,
// in the same layout), its step function, and Keras's DropoutRNNCell
// (one input and one recurrent mask per call).

// cellCore is a built-in cell's weights, activations and dropout.
type cellCore struct {
	units                     int
	dropout, recurrentDropout float64
	w                         recurrentWeights
	act, recAct               activations.Func
}

// build checks one step's input (batch, features) and creates the
// weights of a cell with the given gates.
func (c *cellCore) build(base *Base, inputs []backend.Shape, gates int, kernelInit, recurrentInit string, noBias bool, bias initializers.Initializer, biasShape backend.Shape, p recurrentPenalties) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) != 2 || in[1] <= 0 {
		return nil, fmt.Errorf("a cell takes one step (batch, features), received %v: wrap it in an RNN to run it over sequences", in)
	}
	if c.units <= 0 {
		return nil, fmt.Errorf("units must be positive, got %d", c.units)
	}
	if c.dropout < 0 || c.dropout >= 1 || c.recurrentDropout < 0 || c.recurrentDropout >= 1 {
		return nil, fmt.Errorf("dropout and recurrent_dropout must be in [0, 1), got %g and %g", c.dropout, c.recurrentDropout)
	}
	if c.w, err = base.addRecurrentWeights(in[1], recurrentSettings{units: c.units, gates: gates}, kernelInit, recurrentInit, noBias, bias, biasShape, p); err != nil {
		return nil, err
	}
	return backend.Shape{in[0], c.units}, nil
}

// dropoutMasks draws the call's masks in training.
func (c *cellCore) dropoutMasks(ctx *Context, batch, features int) cellMasks {
	var m cellMasks
	if ctx.Training && c.dropout > 0 {
		m.input = dropoutMask(ctx.B, backend.Shape{batch, features}, c.dropout)
	}
	if ctx.Training && c.recurrentDropout > 0 {
		m.recurrent = dropoutMask(ctx.B, backend.Shape{batch, c.units}, c.recurrentDropout)
	}
	return m
}

// run projects the step's input (dropped by the input mask), drops the
// previous output the recurrent product sees, and steps.
func (c *cellCore) run(ctx *Context, x backend.Value, states []backend.Value, m cellMasks, inputBias backend.Value, step stepFunc) (backend.Value, []backend.Value) {
	b := ctx.B
	if m.input != nil {
		x = b.Mul(x, m.input)
	}
	p := b.MatMul(x, ctx.Weight(c.w.kernel))
	if inputBias != nil {
		p = b.Add(p, inputBias)
	}
	h := states[0]
	if m.recurrent != nil {
		h = b.Mul(h, m.recurrent)
	}
	return step(b, p, h, states)
}

// cellConfig turns a recurrent layer's config into its cell's: no
// sequence settings, a seed.
func cellConfig(cfg serialization.Config) serialization.Config {
	for _, k := range []string{"return_sequences", "return_state", "go_backwards", "stateful", "unroll", "zero_output_for_mask", "activity_regularizer"} {
		delete(cfg, k)
	}
	cfg["seed"] = nil
	return cfg
}

// readCellCommon reads what the built-in cells' configs share and
// refuses the sequence settings a cell does not have.
func readCellCommon(r *serialization.Reader) recurrentReader {
	for _, k := range []string{"return_sequences", "return_state", "go_backwards"} {
		if r.Has(k) {
			r.Fail(k, "is an RNN's setting, not a cell's: set it on the RNN")
		}
	}
	return readRecurrent(r)
}
