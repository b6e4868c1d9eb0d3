package gorgonia

import (
	"math"

	"github.com/kerasgo/kerasgo/internal/kernels"
	G "gorgonia.org/gorgonia"
)

// erf is the error function as a host op (Gorgonia has none), with the
// gradient 2/sqrt(pi) * exp(-x²) built from Gorgonia ops.
func erf(x *G.Node) (*G.Node, error) {
	return elementwise("Erf", x, kernels.Erf[float32], kernels.Erf[float64], func(x, _ *G.Node) (*G.Node, error) {
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
		return G.Mul(e, constantLike(x, 2/math.Sqrt(math.Pi)))
	})
}
