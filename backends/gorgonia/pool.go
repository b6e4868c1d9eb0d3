package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// maxPool2D adds channels_last max pooling to the graph.
func maxPool2D(x *G.Node, o backend.PoolOptions, out backend.Shape) (*G.Node, error) {
	g := kernels.NewPoolGeom(backend.Shape(x.Shape()), o, out)
	dt := x.Dtype()
	fwd := newHostOp("MaxPool2D", tensor.Shape(out).Clone(), dt, []*G.Node{x}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.MaxPoolForward(g, f32(in[0]), d) }),
			func64(func(d []float64) { kernels.MaxPoolForward(g, f64(in[0]), d) }))
	})
	fwd.diff = func(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		back := newHostOp("MaxPool2DGrad", inputs[0].Shape().Clone(), dt, []*G.Node{inputs[0], grad}, func(dst *tensor.Dense, in []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) { kernels.MaxPoolGrad(g, f32(in[0]), f32(in[1]), d) }),
				func64(func(d []float64) { kernels.MaxPoolGrad(g, f64(in[0]), f64(in[1]), d) }))
		})
		dx, err := back.apply(inputs[0], grad)
		if err != nil {
			return nil, err
		}
		return G.Nodes{dx}, nil
	}
	return fwd.apply(x)
}
