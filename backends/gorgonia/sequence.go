package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// What the fused LSTM and GRU share: the input projection of every step
// as one matrix product, the outputs as blocks of the work tensor, and
// the parts of a packed gradient.

// inputProjection is x (batch, steps, features) · kernel + bias as a
// (batch·steps, gates·units) matrix.
func inputProjection(x, kernel, bias backend.Value) (*G.Node, error) {
	xs := x.Shape()
	flat, err := reshape(node(x), tensor.Shape{xs[0] * xs[1], xs[2]})
	if err != nil {
		return nil, err
	}
	proj, err := G.Mul(flat, node(kernel))
	if err != nil || bias == nil {
		return proj, err
	}
	return addBias(proj, node(bias))
}

// stepBlock is the (batch, units) block at offset of work's last step
// (the final h or c).
func stepBlock(g kernels.Sequence, work *G.Node, offset int) (*G.Node, error) {
	s, err := slice(work, []int{0, g.Steps - 1, offset}, []int{g.Batch, 1, g.Units})
	if err != nil {
		return nil, err
	}
	return reshape(s, tensor.Shape{g.Batch, g.Units})
}

// sequenceOutput is the op's first result: h of every step (batch,
// steps, units) or of the last, found at hOffset in work's rows.
func sequenceOutput(g kernels.Sequence, work *G.Node, hOffset int, o backend.RecurrentOptions) (*G.Node, error) {
	if o.ReturnSequences {
		return slice(work, []int{0, 0, hOffset}, []int{g.Batch, g.Steps, g.Units})
	}
	return stepBlock(g, work, hOffset)
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

// sequence is the kernels' geometry of a recurrent op's arguments.
func sequence(x, recurrentKernel backend.Value, o backend.RecurrentOptions) kernels.Sequence {
	xs := x.Shape()
	return kernels.Sequence{Batch: xs[0], Steps: xs[1], Units: recurrentKernel.Shape()[0], Backwards: o.GoBackwards}
}
