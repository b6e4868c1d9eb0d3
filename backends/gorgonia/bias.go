package gorgonia

import (
	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// trailing reports whether b's shape is the last len(b) axes of out (a
// bias over the last axes, as Dense and Conv2D add one). A scalar is not.
func trailing(b, out backend.Shape) bool {
	if len(b) == 0 || len(b) > len(out) {
		return false
	}
	return b.Equal(out[len(out)-len(b):])
}

// addBias is x + bias for a bias over x's trailing axes, as one pass and
// no tiled copy of the bias. Its gradient passes the incoming gradient to
// x unchanged and sums it over the leading axes for the bias. (Through
// BroadcastTo and Gorgonia's Add it was a tile, a clone and an add forward
// and a Sum backward, over the whole of x.)
func addBias(x, bias *G.Node) (*G.Node, error) {
	dt := x.Dtype()
	fwd := newHostOp("AddBias", x.Shape().Clone(), dt, []*G.Node{x, bias}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.AddRows(f32(in[0]), f32(in[1]), d) }),
			func64(func(d []float64) { kernels.AddRows(f64(in[0]), f64(in[1]), d) }))
	})
	fwd.diff = func(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		db, err := biasGrad(grad, inputs[1])
		if err != nil {
			return nil, err
		}
		return G.Nodes{grad, db}, nil
	}
	return fwd.apply(x, bias)
}

// biasGrad is a bias's gradient: grad summed over its leading axes, to
// the bias's shape.
func biasGrad(grad, bias *G.Node) (*G.Node, error) {
	sum := newHostOp("AddBiasGrad", bias.Shape().Clone(), grad.Dtype(), []*G.Node{grad}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.SumRows(f32(in[0]), d) }),
			func64(func(d []float64) { kernels.SumRows(f64(in[0]), d) }))
	})
	return sum.apply(grad)
}

// addBias records what it adds, so that a ReLU of the sum can be fused
// with it (see biasRelu).
func (o *graphOps) addBias(x, bias *G.Node) (*G.Node, error) {
	y, err := addBias(x, bias)
	if err == nil {
		if o.biasAdds == nil {
			o.biasAdds = make(map[*G.Node][2]*G.Node)
		}
		o.biasAdds[y] = [2]*G.Node{x, bias}
	}
	return y, err
}
