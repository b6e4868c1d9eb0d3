package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// maxPool2D adds channels_last max pooling to the graph. When the graph
// differentiates it, the forward op keeps where each window's maximum was
// (argmax, allocated by the first run and reused) for the gradient op,
// which takes the forward's output as an input so that it runs after the
// forward in the same run (a program runs one call at a time). A
// prediction's graph keeps no argmax.
func maxPool2D(x *G.Node, o backend.PoolOptions, out backend.Shape) (*G.Node, error) {
	g := kernels.NewPoolGeom(backend.Shape(x.Shape()), o, out)
	dt := x.Dtype()
	var argmax []int
	differentiated := false // set while the graph is built, read by runs
	fwd := newHostOp("MaxPool2D", tensor.Shape(out).Clone(), dt, []*G.Node{x}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		if differentiated && argmax == nil {
			argmax = make([]int, out.Size())
		}
		return floats(dst, func32(func(d []float32) { kernels.MaxPoolForward(g, f32(in[0]), d, argmax) }),
			func64(func(d []float64) { kernels.MaxPoolForward(g, f64(in[0]), d, argmax) }))
	})
	fwd.diff = func(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
		differentiated = true
		back := newHostOp("MaxPool2DGrad", inputs[0].Shape().Clone(), dt, []*G.Node{output, grad}, func(dst *tensor.Dense, in []*tensor.Dense) error {
			return floats(dst, func32(func(d []float32) { kernels.MaxPoolGrad(g, argmax, f32(in[1]), d) }),
				func64(func(d []float64) { kernels.MaxPoolGrad(g, argmax, f64(in[1]), d) }))
		})
		dx, err := back.apply(output, grad)
		if err != nil {
			return nil, err
		}
		return G.Nodes{dx}, nil
	}
	return fwd.apply(x)
}
