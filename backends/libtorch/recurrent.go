//go:build libtorch

package libtorch

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/sugarme/gotch/ts"
)

// LSTMSequence implements backend.LSTMOps with libtorch's own lstm, the
// op torch.nn.LSTM calls (on PyTorch 2's CPU build oneDNN's RNN kernels,
// forward and backward), instead of the reference's dozen ops per time
// step: with the reference, kerasgo on libtorch took 2-3.4x PyTorch 2's
// step on the LSTM networks. Keras's gates (input, forget, cell, output)
// are PyTorch's (i, f, g, o) in the same order, so PyTorch's weights are
// the transposed kernels, and Keras's one bias is PyTorch's input bias
// beside a zero recurrent bias.
func (o *eagerOps) LSTMSequence(x, kernel, bias, recurrentKernel, h0, c0 backend.Value, opt backend.RecurrentOptions) (out, h, c backend.Value, err error) {
	ch := &chain{o: o}
	params := []*ts.Tensor{ch.transposed(o.tv(kernel)), ch.transposed(o.tv(recurrentKernel))}
	if bias != nil {
		params = append(params, o.tv(bias), ch.zeros(bias.Shape()))
	}
	input := ch.sequence(o.tv(x), opt)
	hx := []*ts.Tensor{ch.layer(o.tv(h0)), ch.layer(o.tv(c0))}
	if ch.err != nil {
		return nil, nil, nil, ch.err
	}
	seq, hn, cn, err := ts.Lstm(input, hx, params, bias != nil, 1, 0, true, false, true)
	if err != nil {
		return nil, nil, nil, err
	}
	o.arena = append(o.arena, seq, hn, cn)
	states, err := ch.results(seq, x.Shape(), recurrentKernel.Shape()[0], opt, hn, cn)
	if err != nil {
		return nil, nil, nil, err
	}
	return states[0], states[1], states[2], nil
}

// GRUSequence implements backend.GRUOps with libtorch's own gru, as
// LSTMSequence does the LSTM. Keras's GRU with reset_after=True is
// PyTorch's (the reset gate scales the recurrent product with its bias),
// with the gates in another order: Keras's columns are update, reset,
// candidate; PyTorch's rows reset, update, new.
func (o *eagerOps) GRUSequence(x, kernel, inputBias, recurrentKernel, recurrentBias, h0 backend.Value, opt backend.RecurrentOptions) (out, h backend.Value, err error) {
	ch := &chain{o: o}
	units := recurrentKernel.Shape()[0]
	params := []*ts.Tensor{
		ch.transposed(ch.resetFirst(o.tv(kernel), 1, units)),
		ch.transposed(ch.resetFirst(o.tv(recurrentKernel), 1, units)),
	}
	withBias := inputBias != nil || recurrentBias != nil
	if withBias {
		for _, b := range []backend.Value{inputBias, recurrentBias} {
			if b == nil {
				params = append(params, ch.zeros(backend.Shape{3 * units}))
			} else {
				params = append(params, ch.resetFirst(o.tv(b), 0, units))
			}
		}
	}
	input := ch.sequence(o.tv(x), opt)
	hx := ch.layer(o.tv(h0))
	if ch.err != nil {
		return nil, nil, ch.err
	}
	seq, hn, err := ts.Gru(input, hx, params, withBias, 1, 0, true, false, true)
	if err != nil {
		return nil, nil, err
	}
	o.arena = append(o.arena, seq, hn)
	states, err := ch.results(seq, x.Shape(), units, opt, hn)
	if err != nil {
		return nil, nil, err
	}
	return states[0], states[1], nil
}

// chain runs libtorch calls one after another, records each tensor they
// make in the arena (freed when the Run ends) and keeps the first error;
// after an error it makes nothing more.
type chain struct {
	o   *eagerOps
	err error
}

func (c *chain) do(f func() (*ts.Tensor, error)) *ts.Tensor {
	if c.err != nil {
		return nil
	}
	t, err := f()
	if err != nil {
		c.err = err
		return nil
	}
	c.o.arena = append(c.o.arena, t)
	return t
}

// transposed is a 2-D tensor's transpose: Keras's kernels are
// (in, gates·units), PyTorch's weights (gates·units, in). On the CPU a
// view; on a GPU a contiguous copy, since cuDNN's RNN (which libtorch's
// lstm and gru call there) copies its weights into one buffer through
// views that a transposed view cannot give ("view size is not compatible
// with input tensor's size and stride").
func (c *chain) transposed(t *ts.Tensor) *ts.Tensor {
	v := c.do(func() (*ts.Tensor, error) { return t.Transpose(0, 1, false) })
	if !c.o.e.device.IsCuda() {
		return v
	}
	return c.do(func() (*ts.Tensor, error) { return v.Contiguous(false) })
}

// zeros is a tensor of zeros in the precision the other operands are
// in (a half-precision one under autocast).
func (c *chain) zeros(s backend.Shape) *ts.Tensor {
	k := kind(c.o.dtype)
	if c.o.autocasts && c.o.dtype == backend.Float32 {
		k = halfKind(c.o.operands)
	}
	return c.do(func() (*ts.Tensor, error) { return ts.Zeros(dims(s), k, c.o.e.device) })
}

// layer gives a state (batch, units) PyTorch's leading axis of layers.
func (c *chain) layer(t *ts.Tensor) *ts.Tensor {
	return c.do(func() (*ts.Tensor, error) { return t.Unsqueeze(0, false) })
}

// sequence is the input as the RNN reads it (batch first), reversed in
// time for Keras's go_backwards, whose outputs are then in the order
// processed, as Keras returns them.
func (c *chain) sequence(t *ts.Tensor, opt backend.RecurrentOptions) *ts.Tensor {
	if !opt.GoBackwards {
		return t
	}
	return c.do(func() (*ts.Tensor, error) { return t.Flip([]int64{1}, false) })
}

// resetFirst swaps the first two blocks of units along axis: Keras's GRU
// gates (update, reset, candidate) in PyTorch's order (reset, update,
// new).
func (c *chain) resetFirst(t *ts.Tensor, axis int64, units int) *ts.Tensor {
	u := int64(units)
	update := c.do(func() (*ts.Tensor, error) { return t.Narrow(axis, 0, u, false) })
	reset := c.do(func() (*ts.Tensor, error) { return t.Narrow(axis, u, u, false) })
	candidate := c.do(func() (*ts.Tensor, error) { return t.Narrow(axis, 2*u, u, false) })
	return c.do(func() (*ts.Tensor, error) { return ts.Cat([]*ts.Tensor{reset, update, candidate}, axis) })
}

// results are the layer's output, every h (batch, steps, units) with
// ReturnSequences or else the last, then with ReturnState the final
// states, each (batch, units), from the RNN's output seq and its final
// states (1, batch, units); without ReturnState the states are nil.
func (c *chain) results(seq *ts.Tensor, x backend.Shape, units int, opt backend.RecurrentOptions, finals ...*ts.Tensor) ([]backend.Value, error) {
	state := backend.Shape{x[0], units}
	vals := make([]backend.Value, 1+len(finals))
	for i, f := range finals {
		t := c.do(func() (*ts.Tensor, error) { return f.SqueezeDim(0, false) })
		if c.err != nil {
			return nil, c.err
		}
		if opt.ReturnState {
			vals[1+i] = &value{t: t, shape: state, dtype: c.o.dtype}
		}
		if i == 0 && !opt.ReturnSequences {
			vals[0] = &value{t: t, shape: state, dtype: c.o.dtype}
		}
	}
	if opt.ReturnSequences {
		vals[0] = &value{t: seq, shape: backend.Shape{x[0], x[1], units}, dtype: c.o.dtype}
	}
	if c.o.autocasts { // record each result's precision (value.half)
		for _, v := range vals {
			if v != nil {
				if err := c.o.roundResult(v.(*value)); err != nil {
					return nil, err
				}
			}
		}
	}
	return vals, nil
}

var (
	_ backend.LSTMOps = (*eagerOps)(nil)
	_ backend.GRUOps  = (*eagerOps)(nil)
)
