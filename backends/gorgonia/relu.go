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
	fwd.diff = func(_ G.Nodes, output, grad *G.Node) (G.Nodes, error) {
		dx, err := reluGrad(output, grad)
		if err != nil {
			return nil, err
		}
		return G.Nodes{dx}, nil
	}
	return fwd.apply(x)
}

// reluGrad is one pass: grad where ReLU's output is positive, else 0.
func reluGrad(output, grad *G.Node) (*G.Node, error) {
	back := newHostOp("ReluGrad", output.Shape().Clone(), output.Dtype(), []*G.Node{output, grad}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.ReluGrad(f32(in[0]), f32(in[1]), d) }),
			func64(func(d []float64) { kernels.ReluGrad(f64(in[0]), f64(in[1]), d) }))
	})
	return back.apply(output, grad)
}

// relu is ReLU of x, fused with the bias add that made x (Dense's and
// Conv2D's bias then their "relu" activation) or the batch normalisation
// that did (BatchNormalization then a ReLU, as in a ResNet) into one pass
// over the data: the op's own output is not written out unless another
// op reads it (the program runs only the nodes its outputs need).
func (o *graphOps) relu(x *G.Node) (*G.Node, error) {
	if add, ok := o.biasAdds[x]; ok {
		return biasRelu(add[0], add[1])
	}
	if bn, ok := o.batchNorms[x]; ok {
		return batchNormRelu(bn)
	}
	if sum, ok := o.adds[x]; ok {
		return addRelu(sum[0], sum[1])
	}
	return relu(x)
}

// add is a + b (Gorgonia's Add, on every core through tensorEngine),
// recorded where the two have one shape, so that a ReLU of the sum (a
// residual block's) can be fused with it (see addRelu).
func (o *graphOps) add(a, b *G.Node) (*G.Node, error) {
	y, err := G.Add(a, b)
	if err == nil && a.Shape().Eq(b.Shape()) && !a.Shape().IsScalar() {
		if o.adds == nil {
			o.adds = make(map[*G.Node][2]*G.Node)
		}
		o.adds[y] = [2]*G.Node{a, b}
	}
	return y, err
}

// addRelu is max(a + b, 0) in one pass, with the values of the two ops it
// replaces. Its gradient is ReLU's, for both operands.
func addRelu(a, b *G.Node) (*G.Node, error) {
	fwd := newHostOp("AddRelu", a.Shape().Clone(), a.Dtype(), []*G.Node{a, b}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.AddRelu(d, f32(in[0]), f32(in[1])) }),
			func64(func(d []float64) { kernels.AddRelu(d, f64(in[0]), f64(in[1])) }))
	})
	fwd.diff = func(_ G.Nodes, output, grad *G.Node) (G.Nodes, error) {
		dz, err := reluGrad(output, grad)
		if err != nil {
			return nil, err
		}
		return G.Nodes{dz, dz}, nil
	}
	return fwd.apply(a, b)
}

// biasRelu is max(x + bias, 0) for a bias over x's trailing axes, in one
// pass, with the values of the two ops it replaces (the sum is rounded,
// then compared). Its gradient is ReLU's, then the bias's sum of it.
func biasRelu(x, bias *G.Node) (*G.Node, error) {
	dt := x.Dtype()
	fwd := newHostOp("AddBiasRelu", x.Shape().Clone(), dt, []*G.Node{x, bias}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.AddRowsRelu(f32(in[0]), f32(in[1]), d) }),
			func64(func(d []float64) { kernels.AddRowsRelu(f64(in[0]), f64(in[1]), d) }))
	})
	fwd.diff = func(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
		dz, err := reluGrad(output, grad)
		if err != nil {
			return nil, err
		}
		db, err := biasGrad(dz, inputs[1])
		if err != nil {
			return nil, err
		}
		return G.Nodes{dz, db}, nil
	}
	return fwd.apply(x, bias)
}
