package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// GRUSequence implements backend.GRUOps as LSTMSequence does the LSTM:
// the input projection as one matrix product, the recurrence as one host
// op (kernels.GRUForward), its gradient as two more (kernels.GRUBackward
// and GRUGradRecurrentKernel) and the recurrent bias's gradient as the
// column sums of the recurrent product's gradient.
func (o *graphOps) GRUSequence(x, kernel, inputBias, recurrentKernel, recurrentBias, h0 backend.Value, opt backend.RecurrentOptions) (out, h backend.Value, err error) {
	g := sequence(x, recurrentKernel, opt)
	proj, err := inputProjection(x, kernel, inputBias)
	if err != nil {
		return nil, nil, err
	}
	var rb *G.Node
	if recurrentBias != nil {
		rb = node(recurrentBias)
	}
	work, err := gruWork(g, o.dtype, proj, node(recurrentKernel), rb, node(h0))
	if err != nil {
		return nil, nil, err
	}
	outN, err := sequenceOutput(g, work, g.GRUHOffset(), opt)
	if err != nil || !opt.ReturnState {
		return value{outN}, nil, err
	}
	hN, err := stepBlock(g, work, g.GRUHOffset())
	if err != nil {
		return nil, nil, err
	}
	return value{outN}, value{hN}, nil
}

// gruWork adds the recurrence: proj (batch·steps, 3·units), the
// recurrent kernel, the recurrent bias (nil for none) and the initial
// state in, the work (batch, steps, width) out.
func gruWork(g kernels.Sequence, dt tensor.Dtype, proj, r, rb, h0 *G.Node) (*G.Node, error) {
	inputs := []*G.Node{proj, r, h0}
	if rb != nil {
		inputs = append(inputs, rb)
	}
	var scratch kernels.Scratch
	m := g.Batch * 3 * g.Units
	fwd := newHostOp("GRU", tensor.Shape{g.Batch, g.Steps, g.GRUWidth()}, dt, inputs, func(dst *tensor.Dense, in []*tensor.Dense) error {
		var bias *tensor.Dense
		if len(in) > 3 {
			bias = in[3]
		}
		return floats(dst, func32(func(d []float32) {
			var b []float32
			if bias != nil {
				b = f32(bias)
			}
			kernels.GRUForward(g, f32(in[0]), f32(in[1]), b, f32(in[2]), d, kernels.ScratchOf[float32](&scratch, m))
		}), func64(func(d []float64) {
			var b []float64
			if bias != nil {
				b = f64(bias)
			}
			kernels.GRUForward(g, f64(in[0]), f64(in[1]), b, f64(in[2]), d, kernels.ScratchOf[float64](&scratch, m))
		}))
	})
	fwd.diff = func(inputs G.Nodes, work, dwork *G.Node) (G.Nodes, error) {
		r, h0 := inputs[1], inputs[2]
		back := newHostOp("GRUGrad", tensor.Shape{g.GRUGradLen()}, dt, []*G.Node{work, dwork, r, h0}, func(dst *tensor.Dense, in []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) { kernels.GRUBackward(g, f32(in[0]), f32(in[1]), f32(in[2]), f32(in[3]), d) }),
				func64(func(d []float64) { kernels.GRUBackward(g, f64(in[0]), f64(in[1]), f64(in[2]), f64(in[3]), d) }))
		})
		grads, err := back.apply(work, dwork, r, h0)
		if err != nil {
			return nil, err
		}
		var hPrev kernels.Scratch
		n := g.Batch * g.Steps * g.Units
		dr := newHostOp("GRUGradRecurrentKernel", r.Shape().Clone(), dt, []*G.Node{work, h0, grads}, func(dst *tensor.Dense, in []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) {
				kernels.GRUGradRecurrentKernel(g, f32(in[0]), f32(in[1]), f32(in[2]), d, kernels.ScratchOf[float32](&hPrev, n))
			}), func64(func(d []float64) {
				kernels.GRUGradRecurrentKernel(g, f64(in[0]), f64(in[1]), f64(in[2]), d, kernels.ScratchOf[float64](&hPrev, n))
			}))
		})
		dR, err := dr.apply(work, h0, grads)
		if err != nil {
			return nil, err
		}
		dProj, err := part(grads, 0, inputs[0].Shape(), dt)
		if err != nil {
			return nil, err
		}
		dh0, err := part(grads, 2*3*n, h0.Shape(), dt)
		if err != nil {
			return nil, err
		}
		out := G.Nodes{dProj, dR, dh0}
		if len(inputs) > 3 {
			// The recurrent bias's gradient: the column sums of m's.
			sums := newHostOp("GRUGradRecurrentBias", tensor.Shape{3 * g.Units}, dt, []*G.Node{grads}, func(dst *tensor.Dense, in []*tensor.Dense) error {
				return floats(dst, func32(func(d []float32) { kernels.SumRows(f32(in[0])[3*n:6*n], d) }),
					func64(func(d []float64) { kernels.SumRows(f64(in[0])[3*n:6*n], d) }))
			})
			dRB, err := sums.apply(grads)
			if err != nil {
				return nil, err
			}
			out = append(out, dRB)
		}
		return out, nil
	}
	return fwd.apply(inputs...)
}

var _ backend.GRUOps = (*graphOps)(nil)
