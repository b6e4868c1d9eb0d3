package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/kernels"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// relu is max(x, 0) as one host op whose gradient is one pass too (dy
// where y > 0, so 0 at 0 as in Keras and libtorch). Gorgonia's Rectify
// takes a comparison and a multiply on a clone for its gradient, about a
// tenth of the CNN step. Scalars keep Rectify (host ops take tensors).
func relu(x *G.Node) (*G.Node, error) {
	if x.Shape().IsScalar() {
		return G.Rectify(x)
	}
	dt := x.Dtype()
	fwd := newHostOp("Relu", x.Shape().Clone(), dt, []*G.Node{x}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.ReluForward(f32(in[0]), d) }),
			func64(func(d []float64) { kernels.ReluForward(f64(in[0]), d) }))
	})
	fwd.diff = func(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
		back := newHostOp("ReluGrad", inputs[0].Shape().Clone(), dt, []*G.Node{output, grad}, func(dst *tensor.Dense, in []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) { kernels.ReluGrad(f32(in[0]), f32(in[1]), d) }),
				func64(func(d []float64) { kernels.ReluGrad(f64(in[0]), f64(in[1]), d) }))
		})
		dx, err := back.apply(output, grad)
		if err != nil {
			return nil, err
		}
		return G.Nodes{dx}, nil
	}
	return fwd.apply(x)
}
