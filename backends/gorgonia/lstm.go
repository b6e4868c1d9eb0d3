package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// LSTMSequence implements backend.LSTMOps: the input projection of every
// step as one matrix product, then the whole recurrence as one host op
// (kernels.LSTMForward) whose gradient is two more
// (kernels.LSTMBackward and LSTMGradRecurrentKernel). The unrolled
// reference adds a dozen nodes per time step, so its graph, its compile
// time and its memory grew with the sequence; this graph has the same
// few nodes for any length.
func (o *graphOps) LSTMSequence(x, kernel, bias, recurrentKernel, h0, c0 backend.Value, opt backend.RecurrentOptions) (out, h, c backend.Value, err error) {
	g := sequence(x, recurrentKernel, opt)
	proj, err := inputProjection(x, kernel, bias)
	if err != nil {
		return nil, nil, nil, err
	}
	work, err := lstmWork(g, o.dtype, proj, node(recurrentKernel), node(h0), node(c0))
	if err != nil {
		return nil, nil, nil, err
	}
	outN, err := sequenceOutput(g, work, g.LSTMHOffset(), opt)
	if err != nil || !opt.ReturnState {
		return value{outN}, nil, nil, err
	}
	hN, err := stepBlock(g, work, g.LSTMHOffset())
	if err != nil {
		return nil, nil, nil, err
	}
	cN, err := stepBlock(g, work, g.LSTMCOffset())
	if err != nil {
		return nil, nil, nil, err
	}
	return value{outN}, value{hN}, value{cN}, nil
}

// lstmWork adds the recurrence: proj (batch·steps, 4·units), the
// recurrent kernel and the initial states in, the work (batch, steps,
// width) out.
func lstmWork(g kernels.Sequence, dt tensor.Dtype, proj, r, h0, c0 *G.Node) (*G.Node, error) {
	u := g.Units
	fwd := newHostOp("LSTM", tensor.Shape{g.Batch, g.Steps, g.LSTMWidth()}, dt, []*G.Node{proj, r, h0, c0}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.LSTMForward(g, f32(in[0]), f32(in[1]), f32(in[2]), f32(in[3]), d) }),
			func64(func(d []float64) { kernels.LSTMForward(g, f64(in[0]), f64(in[1]), f64(in[2]), f64(in[3]), d) }))
	})
	fwd.diff = func(inputs G.Nodes, work, dwork *G.Node) (G.Nodes, error) {
		r, h0, c0 := inputs[1], inputs[2], inputs[3]
		back := newHostOp("LSTMGrad", tensor.Shape{g.LSTMGradLen()}, dt, []*G.Node{work, dwork, r, c0}, func(dst *tensor.Dense, in []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) { kernels.LSTMBackward(g, f32(in[0]), f32(in[1]), f32(in[2]), f32(in[3]), d) }),
				func64(func(d []float64) { kernels.LSTMBackward(g, f64(in[0]), f64(in[1]), f64(in[2]), f64(in[3]), d) }))
		})
		grads, err := back.apply(work, dwork, r, c0)
		if err != nil {
			return nil, err
		}
		var scratch kernels.Scratch
		n := g.Batch * g.Steps * u
		dr := newHostOp("LSTMGradRecurrentKernel", r.Shape().Clone(), dt, []*G.Node{work, h0, grads}, func(dst *tensor.Dense, in []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) {
				kernels.LSTMGradRecurrentKernel(g, f32(in[0]), f32(in[1]), f32(in[2]), d, kernels.ScratchOf[float32](&scratch, n))
			}), func64(func(d []float64) {
				kernels.LSTMGradRecurrentKernel(g, f64(in[0]), f64(in[1]), f64(in[2]), d, kernels.ScratchOf[float64](&scratch, n))
			}))
		})
		dR, err := dr.apply(work, h0, grads)
		if err != nil {
			return nil, err
		}
		nProj := 4 * n
		dProj, err := part(grads, 0, inputs[0].Shape(), dt)
		if err != nil {
			return nil, err
		}
		dh0, err := part(grads, nProj, h0.Shape(), dt)
		if err != nil {
			return nil, err
		}
		dc0, err := part(grads, nProj+g.Batch*u, c0.Shape(), dt)
		if err != nil {
			return nil, err
		}
		return G.Nodes{dProj, dR, dh0, dc0}, nil
	}
	return fwd.apply(proj, r, h0, c0)
}

var _ backend.LSTMOps = (*graphOps)(nil)
