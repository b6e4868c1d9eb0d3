package gorgonia

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/internal/kernels"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// erf is the error function as a host op (Gorgonia has none), with the
// gradient 2/sqrt(pi) * exp(-x²) built from Gorgonia ops.
func erf(x *G.Node) (*G.Node, error) {
	if x.Shape().IsScalar() {
		return nil, fmt.Errorf("the gorgonia engine takes Erf of tensors, not of a scalar: reshape it to (1)")
	}
	fwd := newHostOp("Erf", x.Shape().Clone(), x.Dtype(), []*G.Node{x}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.Erf(f32(in[0]), d) }),
			func64(func(d []float64) { kernels.Erf(f64(in[0]), d) }))
	})
	fwd.diff = func(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		x := inputs[0]
		sq, err := G.Square(x)
		if err != nil {
			return nil, err
		}
		neg, err := G.Neg(sq)
		if err != nil {
			return nil, err
		}
		e, err := G.Exp(neg)
		if err != nil {
			return nil, err
		}
		var two G.Value = G.NewF64(2 / math.Sqrt(math.Pi))
		if x.Dtype() == tensor.Float32 {
			two = G.NewF32(float32(2 / math.Sqrt(math.Pi)))
		}
		d, err := G.Mul(e, G.NewConstant(two, G.In(x.Graph())))
		if err != nil {
			return nil, err
		}
		dx, err := G.HadamardProd(grad, d)
		if err != nil {
			return nil, err
		}
		return G.Nodes{dx}, nil
	}
	return fwd.apply(x)
}
