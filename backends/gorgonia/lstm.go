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
func (o *graphOps) LSTMSequence(x, kernel, bias, recurrentKernel, h0, c0 backend.Value, opt backend.LSTMOptions) (out, h, c backend.Value, err error) {
	xs := x.Shape()
	g := kernels.LSTMGeom{Batch: xs[0], Steps: xs[1], Units: recurrentKernel.Shape()[0], Backwards: opt.GoBackwards}
	u := g.Units
	flat, err := reshape(node(x), tensor.Shape{g.Batch * g.Steps, xs[2]})
	if err != nil {
		return nil, nil, nil, err
	}
	proj, err := G.Mul(flat, node(kernel))
	if err != nil {
		return nil, nil, nil, err
	}
	if bias != nil {
		if proj, err = addBias(proj, node(bias)); err != nil {
			return nil, nil, nil, err
		}
	}
	work, err := lstmWork(g, o.dtype, proj, node(recurrentKernel), node(h0), node(c0))
	if err != nil {
		return nil, nil, nil, err
	}
	// The outputs are blocks of the work: h at every step or the last,
	// and the last c.
	last := g.Steps - 1
	hLast := func() (*G.Node, error) {
		s, err := slice(work, []int{0, last, g.HOffset()}, []int{g.Batch, 1, u})
		if err != nil {
			return nil, err
		}
		return reshape(s, tensor.Shape{g.Batch, u})
	}
	var outN *G.Node
	if opt.ReturnSequences {
		outN, err = slice(work, []int{0, 0, g.HOffset()}, []int{g.Batch, g.Steps, u})
	} else {
		outN, err = hLast()
	}
	if err != nil || !opt.ReturnState {
		return value{outN}, nil, nil, err
	}
	hN, err := hLast()
	if err != nil {
		return nil, nil, nil, err
	}
	cN, err := slice(work, []int{0, last, g.COffset()}, []int{g.Batch, 1, u})
	if err != nil {
		return nil, nil, nil, err
	}
	if cN, err = reshape(cN, tensor.Shape{g.Batch, u}); err != nil {
		return nil, nil, nil, err
	}
	return value{outN}, value{hN}, value{cN}, nil
}

// lstmWork adds the recurrence: proj (batch·steps, 4·units), the
// recurrent kernel and the initial states in, the work (batch, steps,
// width) out.
func lstmWork(g kernels.LSTMGeom, dt tensor.Dtype, proj, r, h0, c0 *G.Node) (*G.Node, error) {
	u := g.Units
	fwd := newHostOp("LSTM", tensor.Shape{g.Batch, g.Steps, g.WorkWidth()}, dt, []*G.Node{proj, r, h0, c0}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.LSTMForward(g, f32(in[0]), f32(in[1]), f32(in[2]), f32(in[3]), d) }),
			func64(func(d []float64) { kernels.LSTMForward(g, f64(in[0]), f64(in[1]), f64(in[2]), f64(in[3]), d) }))
	})
	fwd.diff = func(inputs G.Nodes, work, dwork *G.Node) (G.Nodes, error) {
		r, h0, c0 := inputs[1], inputs[2], inputs[3]
		back := newHostOp("LSTMGrad", tensor.Shape{g.GradLen()}, dt, []*G.Node{work, dwork, r, c0}, func(dst *tensor.Dense, in []*tensor.Dense) error {
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

// part copies the values of the flat node from `from` on into a tensor of
// the given shape (one of the results an op packs into one tensor).
func part(flat *G.Node, from int, shape tensor.Shape, dt tensor.Dtype) (*G.Node, error) {
	n := shape.TotalSize()
	op := newHostOp("Part", shape.Clone(), dt, []*G.Node{flat}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { copy(d, f32(in[0])[from:from+n]) }),
			func64(func(d []float64) { copy(d, f64(in[0])[from:from+n]) }))
	})
	return op.apply(flat)
}

var _ backend.LSTMOps = (*graphOps)(nil)
