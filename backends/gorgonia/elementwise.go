package gorgonia

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// elementwise applies a function to every value of x as a host op (for
// functions Gorgonia has no op for), k32 and k64 its kernels from x's
// values to the result's, with the gradient grad·deriv(x, y), y being the
// result. A scalar goes through as a one-value tensor, since host kernels
// take tensors.
func elementwise(name string, x *G.Node, k32 func(x, y []float32), k64 func(x, y []float64), deriv func(x, y *G.Node) (*G.Node, error)) (*G.Node, error) {
	if x.IsScalar() {
		one, err := reshape(x, tensor.Shape{1})
		if err != nil {
			return nil, err
		}
		y, err := elementwise(name, one, k32, k64, deriv)
		if err != nil {
			return nil, err
		}
		return reshape(y, tensor.ScalarShape())
	}
	op := newHostOp(name, x.Shape().Clone(), x.Dtype(), []*G.Node{x}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		if err := sameDType(in[0], dst); err != nil {
			return err
		}
		return floats(dst, func32(func(d []float32) { k32(f32(in[0]), d) }), func64(func(d []float64) { k64(f64(in[0]), d) }))
	})
	op.diff = func(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
		d, err := deriv(inputs[0], output)
		if err != nil {
			return nil, err
		}
		dx, err := G.HadamardProd(grad, d)
		if err != nil {
			return nil, err
		}
		return G.Nodes{dx}, nil
	}
	return op.apply(x)
}

// pointwise makes elementwise's kernels from f, computed in float64.
func pointwise(f func(float64) float64) (func(x, y []float32), func(x, y []float64)) {
	return func(x, y []float32) {
			for i, v := range x {
				y[i] = float32(f(float64(v)))
			}
		}, func(x, y []float64) {
			for i, v := range x {
				y[i] = f(v)
			}
		}
}

// constantLike is the scalar constant v in x's graph and dtype.
func constantLike(x *G.Node, v float64) *G.Node {
	var c G.Value = G.NewF64(v)
	if x.Dtype() == tensor.Float32 {
		c = G.NewF32(float32(v))
	}
	return G.NewConstant(c, G.In(x.Graph()))
}

// atan is the inverse tangent; its derivative is 1/(1+x²).
func atan(x *G.Node) (*G.Node, error) {
	k32, k64 := pointwise(math.Atan)
	return elementwise("Atan", x, k32, k64, func(x, _ *G.Node) (*G.Node, error) {
		sq, err := G.Square(x)
		if err != nil {
			return nil, err
		}
		den, err := G.Add(sq, constantLike(x, 1))
		if err != nil {
			return nil, err
		}
		return G.Inverse(den)
	})
}

// erfInv is the inverse error function; its derivative is
// sqrt(pi)/2·exp(y²).
func erfInv(x *G.Node) (*G.Node, error) {
	k32, k64 := pointwise(math.Erfinv)
	return elementwise("ErfInv", x, k32, k64, func(_, y *G.Node) (*G.Node, error) {
		sq, err := G.Square(y)
		if err != nil {
			return nil, err
		}
		e, err := G.Exp(sq)
		if err != nil {
			return nil, err
		}
		return G.Mul(e, constantLike(y, math.Sqrt(math.Pi)/2))
	})
}

// where picks a where cond is not 0 and b elsewhere, the three broadcast
// to out first (whose gradient sums back over broadcast axes). The
// gradient of a is grad where cond holds and 0 elsewhere, built by the
// same op, so an Inf in the branch not taken never meets a 0.
func where(cond, a, b *G.Node, out backend.Shape) (*G.Node, error) {
	if len(out) == 0 {
		one := backend.Shape{1}
		var err error
		for _, n := range []**G.Node{&cond, &a, &b} {
			if *n, err = reshape(*n, tensor.Shape{1}); err != nil {
				return nil, err
			}
		}
		y, err := where(cond, a, b, one)
		if err != nil {
			return nil, err
		}
		return reshape(y, tensor.ScalarShape())
	}
	var err error
	for _, n := range []**G.Node{&cond, &a, &b} {
		if *n, err = broadcastTo(*n, out); err != nil {
			return nil, err
		}
	}
	op := newHostOp("Where", tensor.Shape(out).Clone(), a.Dtype(), []*G.Node{cond, a, b}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		for _, t := range in {
			if err := sameDType(t, dst); err != nil {
				return err
			}
		}
		return floats(dst, func32(func(d []float32) {
			c, x, y := f32(in[0]), f32(in[1]), f32(in[2])
			for i := range d {
				if c[i] != 0 {
					d[i] = x[i]
				} else {
					d[i] = y[i]
				}
			}
		}), func64(func(d []float64) {
			c, x, y := f64(in[0]), f64(in[1]), f64(in[2])
			for i := range d {
				if c[i] != 0 {
					d[i] = x[i]
				} else {
					d[i] = y[i]
				}
			}
		}))
	})
	op.wrt = []bool{false, true, true}
	op.diff = func(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		zero := constantLike(grad, 0)
		da, err := where(inputs[0], grad, zero, out)
		if err != nil {
			return nil, err
		}
		db, err := where(inputs[0], zero, grad, out)
		if err != nil {
			return nil, err
		}
		return G.Nodes{nil, da, db}, nil
	}
	return op.apply(cond, a, b)
}

func (o *graphOps) Where(cond, a, b backend.Value, out backend.Shape) (backend.Value, error) {
	if cond.DType() != o.DType() || a.DType() != o.DType() || b.DType() != o.DType() {
		return nil, fmt.Errorf("Where takes values of the Func's dtype %v", o.DType())
	}
	return wrap(where(node(cond), node(a), node(b), out))
}

// stopGradient is the identity as a host op without a gradient, so that
// Gorgonia's differentiation treats its result as a constant.
func stopGradient(x *G.Node) (*G.Node, error) {
	if x.IsScalar() {
		one, err := reshape(x, tensor.Shape{1})
		if err != nil {
			return nil, err
		}
		y, err := stopGradient(one)
		if err != nil {
			return nil, err
		}
		return reshape(y, tensor.ScalarShape())
	}
	op := newHostOp("StopGradient", x.Shape().Clone(), x.Dtype(), []*G.Node{x}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		if err := sameDType(in[0], dst); err != nil {
			return err
		}
		return floats(dst, func32(func(d []float32) { copy(d, f32(in[0])) }), func64(func(d []float64) { copy(d, f64(in[0])) }))
	})
	return op.apply(x)
}
