package gorgonia

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/kerasgo/kerasgo/internal/kernels"
	"github.com/kerasgo/kerasgo/keras/backend"
	"gonum.org/v1/gonum/blas"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// value is a symbolic tensor in a Gorgonia graph.
type value struct{ n *G.Node }

func (v value) Shape() backend.Shape { return backend.Shape(v.n.Shape().Clone()) }
func (v value) DType() backend.DType { return fromDtype(v.n.Dtype()) }

func node(v backend.Value) *G.Node { return v.(value).n }

func wrap(n *G.Node, err error) (backend.Value, error) {
	if err != nil {
		return nil, err
	}
	return value{n}, nil
}

// graphOps implements backend.Ops by adding nodes to one ExprGraph.
type graphOps struct {
	g         *G.ExprGraph
	dtype     tensor.Dtype
	rng       *rand.Rand
	src       *rand.PCG // rng's source, which the dropout mask moves ahead itself
	constants int       // numbers the tensor constants (see Constant)
	scope     string    // the layer whose ops are being built (backend.Scoper)
	// biasAdds holds each AddBias result's operands (x, bias), adds each
	// sum's of two tensors of one shape, and batchNorms each
	// BatchNormalize result's op, for relu to fuse.
	biasAdds, adds map[*G.Node][2]*G.Node
	batchNorms     map[*G.Node]batchNorm
}

// SetScope labels the host ops built from now on with what builds them
// (a layer), so that a kernel failing at run time (an index out of range
// in Gather) names it.
func (o *graphOps) SetScope(scope string) { o.scope = scope }

// label names a host op after its kind and what builds it.
func (o *graphOps) label(name string) string {
	if o.scope == "" {
		return name
	}
	return o.scope + ": " + name
}

func (o *graphOps) DType() backend.DType { return fromDtype(o.dtype) }

func (o *graphOps) scalarValue(v float64) G.Value {
	if o.dtype == tensor.Float64 {
		return G.NewF64(v)
	}
	return G.NewF32(float32(v))
}

func (o *graphOps) Scalar(v float64) (backend.Value, error) {
	return value{G.NewConstant(o.scalarValue(v), G.In(o.g))}, nil
}

func (o *graphOps) Constant(data []float64, s backend.Shape) (backend.Value, error) {
	if len(s) == 0 {
		return o.Scalar(data[0])
	}
	var backing any = append([]float64(nil), data...)
	if o.dtype == tensor.Float32 {
		f := make([]float32, len(data))
		for i, v := range data {
			f[i] = float32(v)
		}
		backing = f
	}
	// Gorgonia merges constant nodes by name, and the default name is the
	// printed value, which is abbreviated for large tensors: two constants
	// of different shapes could become one node. Every tensor constant
	// gets a name of its own.
	o.constants++
	name := fmt.Sprintf("kerasgo_constant_%d", o.constants)
	return value{G.NewConstant(newDense(backing, s), G.In(o.g), G.WithName(name))}, nil
}

func (o *graphOps) Unary(op backend.UnaryOp, x backend.Value) (backend.Value, error) {
	n := node(x)
	switch op {
	case backend.OpNeg:
		return wrap(G.Neg(n))
	case backend.OpExp:
		return wrap(G.Exp(n))
	case backend.OpLog:
		return wrap(G.Log(n))
	case backend.OpSqrt:
		return wrap(G.Sqrt(n))
	case backend.OpSquare:
		return wrap(G.Square(n))
	case backend.OpRelu:
		return wrap(o.relu(n))
	case backend.OpSigmoid:
		return wrap(G.Sigmoid(n))
	case backend.OpTanh:
		return wrap(G.Tanh(n))
	case backend.OpSoftmax:
		return wrap(softmax(n, false))
	case backend.OpLogSoftmax:
		return wrap(softmax(n, true))
	case backend.OpErf:
		return wrap(erf(n))
	case backend.OpSin:
		return wrap(G.Sin(n))
	case backend.OpCos:
		return wrap(G.Cos(n))
	case backend.OpFloor:
		return wrap(G.Floor(n))
	case backend.OpAbs:
		return wrap(G.Abs(n))
	case backend.OpLog1p:
		return wrap(G.Log1p(n))
	case backend.OpExpm1:
		return wrap(G.Expm1(n))
	case backend.OpAtan:
		return wrap(atan(n))
	case backend.OpErfInv:
		return wrap(erfInv(n))
	case backend.OpStopGradient:
		return wrap(stopGradient(n))
	}
	return nil, fmt.Errorf("unary op %v is not implemented by gorgonia", op)
}

// broadcast returns a and b expanded to the shape out, so that an
// elementwise Gorgonia op can combine them. Most Gorgonia ops take a scalar
// operand as it is; scalarOK=false expands scalars too. Gorgonia's own
// Broadcast is not used: its gradient is wrong when three axes are
// broadcast (the conformance case Add/bias4D shows it).
func broadcast(a, b *G.Node, out backend.Shape, scalarOK bool) (*G.Node, *G.Node, error) {
	if backend.Shape(a.Shape()).Equal(backend.Shape(b.Shape())) || (scalarOK && (a.IsScalar() || b.IsScalar())) {
		return a, b, nil
	}
	var err error
	if a, err = broadcastTo(a, out); err != nil {
		return nil, nil, err
	}
	if b, err = broadcastTo(b, out); err != nil {
		return nil, nil, err
	}
	return a, b, nil
}

// broadcastTo tiles x to shape out (NumPy rules). Its gradient sums the
// incoming gradient over the broadcast axes (a host kernel, the adjoint of
// the tiling: Gorgonia's Sum over a middle axis of a 4-D gradient gave
// wrong values when both operands of an op were broadcast) and reshapes
// it to x's shape.
func broadcastTo(x *G.Node, out backend.Shape) (*G.Node, error) {
	orig := x.Shape().Clone()
	if out.Equal(backend.Shape(orig)) {
		return x, nil
	}
	padded := make(tensor.Shape, len(out)) // x's shape left-padded with 1s
	for i := range padded {
		padded[i] = 1
	}
	copy(padded[len(out)-len(orig):], orig)
	if !backend.Shape(padded).Equal(backend.Shape(orig)) {
		var err error
		if x, err = reshape(x, padded); err != nil {
			return nil, err
		}
	}
	op := newHostOp("BroadcastTo", tensor.Shape(out).Clone(), x.Dtype(), []*G.Node{x}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		if err := sameDType(in[0], dst); err != nil {
			return err
		}
		return floats(dst, func32(func(d []float32) { kernels.Tile(d, f32(in[0]), padded, out) }),
			func64(func(d []float64) { kernels.Tile(d, f64(in[0]), padded, out) }))
	})
	op.diff = func(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		back := newHostOp("BroadcastToGrad", padded.Clone(), x.Dtype(), []*G.Node{grad}, func(dst *tensor.Dense, in []*tensor.Dense) error {
			switch d := dst.Data().(type) {
			case []float32:
				kernels.Untile(d, f32(in[0]), padded, out)
			case []float64:
				kernels.Untile(d, f64(in[0]), padded, out)
			default:
				return fmt.Errorf("BroadcastToGrad: unsupported data %T", dst.Data())
			}
			return nil
		})
		g, err := back.apply(grad)
		if err != nil {
			return nil, err
		}
		return G.Nodes{g}, nil
	}
	y, err := op.apply(x)
	if err != nil {
		return nil, err
	}
	return y, nil
}

func (o *graphOps) Binary(op backend.BinaryOp, av, bv backend.Value, out backend.Shape) (backend.Value, error) {
	if op == backend.OpAdd && !av.Shape().Equal(bv.Shape()) {
		switch {
		case av.Shape().Equal(out) && trailing(bv.Shape(), out):
			return wrap(o.addBias(node(av), node(bv)))
		case bv.Shape().Equal(out) && trailing(av.Shape(), out):
			return wrap(o.addBias(node(bv), node(av)))
		}
	}
	a, b, err := broadcast(node(av), node(bv), out, op != backend.OpMaximum && op != backend.OpMinimum)
	if err != nil {
		return nil, err
	}
	switch op {
	case backend.OpAdd:
		return wrap(o.add(a, b))
	case backend.OpSub:
		return wrap(G.Sub(a, b))
	case backend.OpMul:
		return wrap(G.HadamardProd(a, b))
	case backend.OpDiv:
		return wrap(G.HadamardDiv(a, b))
	case backend.OpMaximum, backend.OpMinimum:
		if len(out) == 0 { // Gorgonia's MaxBetween takes tensors, not scalars
			return scalarMaxMin(a, b, op == backend.OpMaximum)
		}
		if op == backend.OpMaximum {
			return wrap(G.MaxBetween(a, b))
		}
		return wrap(G.MinBetween(a, b))
	case backend.OpEqual:
		return wrap(G.Eq(a, b, true))
	case backend.OpGreater:
		return wrap(G.Gt(a, b, true))
	}
	return nil, fmt.Errorf("binary op %v is not implemented by gorgonia", op)
}

// scalarMaxMin is max(a, b) = b + [a > b](a - b) (or min(a, b) = a +
// [a > b](b - a)) for scalars, from ops Gorgonia has for them; the
// comparison passes no gradient, so d/da is [a > b] as for MaxBetween.
func scalarMaxMin(a, b *G.Node, max bool) (backend.Value, error) {
	gt, err := G.Gt(a, b, true)
	if err != nil {
		return nil, err
	}
	base, other := b, a
	if !max {
		base, other = a, b
	}
	d, err := G.Sub(other, base)
	if err != nil {
		return nil, err
	}
	step, err := G.Mul(gt, d)
	if err != nil {
		return nil, err
	}
	return wrap(G.Add(base, step))
}

func (o *graphOps) Concat(xs []backend.Value, axis int, _ backend.Shape) (backend.Value, error) {
	ns := make(G.Nodes, len(xs))
	for i, x := range xs {
		ns[i] = node(x)
	}
	return wrap(G.Concat(axis, ns...))
}

func (o *graphOps) MatMul(a, b backend.Value) (backend.Value, error) {
	return wrap(G.Mul(node(a), node(b)))
}

// BatchMatMul is batchMatMul of the operands as they are.
func (o *graphOps) BatchMatMul(a, b backend.Value, out backend.Shape) (backend.Value, error) {
	return wrap(batchMatMul(node(a), node(b), blas.NoTrans, blas.NoTrans, tensor.Shape(out).Clone()))
}

// batchMatMul is op(a)·op(b) over the leading (batch) axes, as one host
// op on the tensors as they are: Gorgonia's BatchedMatMul wants rank 3,
// and the reshapes to it and back copied the attention's scores four
// times a step. The gradients are batched products too: da = g·op(b)ᵀ,
// db = op(a)ᵀ·g, for the untransposed operands (the only ones
// differentiated: the transposed products are themselves gradients).
func batchMatMul(a, b *G.Node, ta, tb blas.Transpose, out tensor.Shape) (*G.Node, error) {
	as, r := a.Shape(), a.Shape().Dims()
	batch := backend.Shape(out[:r-2]).Size()
	m, n := out[r-2], out[r-1]
	k := as[r-1]
	if ta == blas.Trans {
		k = as[r-2]
	}
	op := newHostOp("BatchMatMul", out, a.Dtype(), []*G.Node{a, b}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		return floats(dst, func32(func(d []float32) { kernels.BatchGemm(ta, tb, batch, m, n, k, f32(in[0]), f32(in[1]), d) }),
			func64(func(d []float64) { kernels.BatchGemm(ta, tb, batch, m, n, k, f64(in[0]), f64(in[1]), d) }))
	})
	if ta == blas.NoTrans && tb == blas.NoTrans {
		op.diff = func(inputs G.Nodes, _, grad *G.Node) (G.Nodes, error) {
			da, err := batchMatMul(grad, inputs[1], blas.NoTrans, blas.Trans, inputs[0].Shape().Clone())
			if err != nil {
				return nil, err
			}
			db, err := batchMatMul(inputs[0], grad, blas.Trans, blas.NoTrans, inputs[1].Shape().Clone())
			if err != nil {
				return nil, err
			}
			return G.Nodes{da, db}, nil
		}
	}
	return op.apply(a, b)
}

// Reduce uses Gorgonia's reductions over all axes, and a host kernel
// over some of them: Gorgonia's Sum over axis 2 of a 4-D tensor gives
// wrong values (the conformance suite's Sum/(2, 3, 5, 4)/axes[2]).
func (o *graphOps) Reduce(op backend.ReduceOp, x backend.Value, axes []int) (backend.Value, error) {
	n := node(x)
	if len(axes) < len(x.Shape()) {
		return wrap(partialReduce(n, op, axes))
	}
	switch op {
	case backend.OpSum:
		return wrap(G.Sum(n, axes...))
	case backend.OpMean:
		return wrap(G.Mean(n, axes...))
	}
	return nil, fmt.Errorf("reduction %v is not implemented by gorgonia", op)
}

// partialReduce sums (or averages) x over some of its axes with untile,
// the adjoint of the broadcast that is its gradient.
func partialReduce(x *G.Node, op backend.ReduceOp, axes []int) (*G.Node, error) {
	in := backend.Shape(x.Shape()).Clone()
	kept := in.Clone() // in with 1 on the reduced axes
	count := 1
	for _, a := range axes {
		count *= in[a]
		kept[a] = 1
	}
	scale := 1.0
	if op == backend.OpMean {
		scale = 1 / float64(count)
	}
	if op != backend.OpSum && op != backend.OpMean {
		return nil, fmt.Errorf("reduction %v is not implemented by gorgonia", op)
	}
	sum := newHostOp(op.String(), tensor.Shape(kept).Clone(), x.Dtype(), []*G.Node{x}, func(dst *tensor.Dense, src []*tensor.Dense) error {
		switch d := dst.Data().(type) {
		case []float32:
			kernels.Untile(d, f32(src[0]), kept, in)
			scaleBy(d, float32(scale))
		case []float64:
			kernels.Untile(d, f64(src[0]), kept, in)
			scaleBy(d, scale)
		default:
			return fmt.Errorf("unsupported data %T", dst.Data())
		}
		return nil
	})
	sum.diff = func(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		back := newHostOp(op.String()+"Grad", tensor.Shape(in).Clone(), x.Dtype(), []*G.Node{grad}, func(dst *tensor.Dense, src []*tensor.Dense) error {
			switch d := dst.Data().(type) {
			case []float32:
				kernels.Tile(d, f32(src[0]), kept, in)
				scaleBy(d, float32(scale))
			case []float64:
				kernels.Tile(d, f64(src[0]), kept, in)
				scaleBy(d, scale)
			default:
				return fmt.Errorf("unsupported data %T", dst.Data())
			}
			return nil
		})
		g, err := back.apply(grad)
		if err != nil {
			return nil, err
		}
		return G.Nodes{g}, nil
	}
	y, err := sum.apply(x)
	if err != nil {
		return nil, err
	}
	return reshape(y, tensor.Shape(backend.ReducedShape(in, axes)))
}

// scaleBy multiplies v by s in place (nothing to do for 1).
func scaleBy[T float32 | float64](v []T, s T) {
	if s == 1 {
		return
	}
	kernels.Scale(v, s)
}

func (o *graphOps) Reshape(x backend.Value, s backend.Shape) (backend.Value, error) {
	return wrap(reshape(node(x), tensor.Shape(s)))
}

// reshape copies x into a tensor of shape s. Gorgonia's own Reshape
// returns a view of its input, and its compiler does not see the alias: an
// in-place op later on the input (say m*0.01 for a moving average) also
// changed the view's values (BatchNormalization's output came out wrong).
// A copy costs one pass over the data and cannot alias.
func reshape(x *G.Node, s tensor.Shape) (*G.Node, error) {
	if tensor.Shape(x.Shape()).Eq(s) && len(x.Shape()) == len(s) {
		return x, nil
	}
	if len(s) == 0 {
		// A one-value tensor to a scalar: Gorgonia's Reshape makes a
		// zero-dimensional tensor that its scalar ops reject ("Type
		// Mismatch: Tensor-0 != float32"); the sum of the one value is a
		// true scalar, with the right gradient.
		return G.Sum(x)
	}
	var op *hostOp
	op = newHostOp("Reshape", s.Clone(), x.Dtype(), []*G.Node{x}, func(dst *tensor.Dense, in []*tensor.Dense) error {
		switch d := dst.Data().(type) {
		case []float32:
			if in[0] == nil { // a scalar input: its value is in op.scalars
				d[0] = float32(op.scalars[0])
			} else {
				kernels.Copy(d, in[0].Data().([]float32))
			}
		case []float64:
			if in[0] == nil {
				d[0] = op.scalars[0]
			} else {
				kernels.Copy(d, in[0].Data().([]float64))
			}
		default:
			return fmt.Errorf("reshape of %T", d)
		}
		return nil
	})
	orig := x.Shape().Clone()
	op.diff = func(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
		g, err := reshape(grad, orig)
		return G.Nodes{g}, err
	}
	return op.apply(x)
}

// Conv2D is an own channels_last kernel (conv.go): Gorgonia's Conv2d is
// NCHW and the transposes around it cost a quarter of a CNN step.
func (o *graphOps) Conv2D(x, k backend.Value, opt backend.ConvOptions, out backend.Shape) (backend.Value, error) {
	return wrap(conv2D(node(x), node(k), opt, out))
}

// MaxPool2D is an own channels_last kernel (pool.go).
func (o *graphOps) MaxPool2D(x backend.Value, opt backend.PoolOptions, out backend.Shape) (backend.Value, error) {
	return wrap(maxPool2D(node(x), opt, out))
}

func (o *graphOps) ArgMax(x backend.Value) (backend.Value, error) {
	n := node(x)
	out := tensor.Shape(x.Shape()[:len(x.Shape())-1]).Clone()
	if len(out) == 0 {
		out = tensor.Shape{1}
	}
	op := newHostOp("ArgMax", out, o.dtype, []*G.Node{n}, func(out *tensor.Dense, in []*tensor.Dense) error {
		if err := sameDType(in[0], out); err != nil {
			return err
		}
		return floats(out, func32(func(d []float32) { kernels.ArgMaxRows(f32(in[0]), d) }),
			func64(func(d []float64) { kernels.ArgMaxRows(f64(in[0]), d) }))
	})
	y, err := op.apply(n)
	if err != nil || len(x.Shape()) > 1 {
		return wrap(y, err)
	}
	return wrap(G.Reshape(y, tensor.ScalarShape()))
}

func (o *graphOps) OneHot(indices backend.Value, depth int) (backend.Value, error) {
	n := node(indices)
	out := append(tensor.Shape(indices.Shape()).Clone(), depth)
	op := newHostOp("OneHot", out, o.dtype, []*G.Node{n}, func(out *tensor.Dense, in []*tensor.Dense) error {
		if err := sameDType(in[0], out); err != nil {
			return err
		}
		var bad error
		err := floats(out, func32(func(d []float32) { bad = kernels.OneHotRows(f32(in[0]), d, depth) }),
			func64(func(d []float64) { bad = kernels.OneHotRows(f64(in[0]), d, depth) }))
		return errors.Join(err, bad)
	})
	return wrap(op.apply(n))
}

func (o *graphOps) RandomUniform(s backend.Shape) (backend.Value, error) {
	seed := G.NewConstant(o.scalarValue(0), G.In(o.g))
	rng := o.rng
	op := newHostOp("RandomUniform", tensor.Shape(s).Clone(), o.dtype, []*G.Node{seed}, func(out *tensor.Dense, _ []*tensor.Dense) error {
		fillUniform(out.Data(), rng)
		return nil
	})
	return wrap(op.apply(seed))
}

func (o *graphOps) RandomNormal(s backend.Shape) (backend.Value, error) {
	seed := G.NewConstant(o.scalarValue(0), G.In(o.g))
	rng := o.rng
	op := newHostOp("RandomNormal", tensor.Shape(s).Clone(), o.dtype, []*G.Node{seed}, func(out *tensor.Dense, _ []*tensor.Dense) error {
		fillNormal(out.Data(), rng)
		return nil
	})
	return wrap(op.apply(seed))
}

func (o *graphOps) Grad(loss backend.Value, wrt []backend.Value) ([]backend.Value, error) {
	ns := make(G.Nodes, len(wrt))
	for i, w := range wrt {
		ns[i] = node(w)
	}
	grads, err := differentiate(node(loss), ns)
	if err != nil && (strings.Contains(err.Error(), "Non Differentiable WRTs") || strings.Contains(err.Error(), "No gradients found for node")) {
		// An input whose only paths to the loss go through ops without a
		// gradient (a comparison, StopGradient), or a value the loss does
		// not use: its gradient is zero, as JAX and PyTorch give it, not
		// an error.
		return o.gradEach(loss, wrt)
	}
	if err != nil {
		return nil, err
	}
	return values(grads), nil
}

// differentiate returns the gradients of cost with respect to ns.
// Gorgonia's Grad refuses a value computed in the graph (a layer's
// output, as grad-CAM takes); its back-propagation does not, from the
// same seed of one that Grad gives.
//
// Gorgonia's back-propagation takes a node's recorded derivative, when it
// has one, as its gradient: a second Grad in one graph (a step with two
// losses over one forward pass: an actor and a critic, a GAN reusing its
// generated batch) would reuse the first loss's derivatives for every
// node the two share and return wrong gradients. So each differentiation
// starts from no recorded derivatives (forgetDerivatives); the gradients
// already returned are nodes of the graph and stay as they are.
func differentiate(cost *G.Node, ns G.Nodes) (G.Nodes, error) {
	forgetDerivatives(cost.Graph())
	grads, err := G.Grad(cost, ns...)
	if err != nil && strings.Contains(err.Error(), "Can only differentiate with regards to input nodes") {
		one := any(float32(1))
		if cost.Dtype() == tensor.Float64 {
			one = float64(1)
		}
		forgetDerivatives(cost.Graph())
		grads, err = G.Backpropagate(G.Nodes{cost}, G.Nodes{cost.Graph().AddNode(G.NewConstant(one))}, ns)
	}
	return grads, err
}

// gradEach differentiates loss + 0·Σ sum(w) instead: every w then has a
// differentiable path, its gradient the loss's plus an exact zero (a
// constant times 0, so an Inf in w does not reach it). Gorgonia's Grad
// cannot be called once per value: a second call on one graph reuses
// the first's derivatives.
func (o *graphOps) gradEach(loss backend.Value, wrt []backend.Value) ([]backend.Value, error) {
	total := node(loss)
	zero := constantLike(total, 0)
	ns := make(G.Nodes, len(wrt))
	for i, w := range wrt {
		n := node(w)
		ns[i] = n
		if !n.IsScalar() {
			var err error
			if n, err = G.Sum(n); err != nil {
				return nil, err
			}
		}
		term, err := G.Mul(n, zero)
		if err != nil {
			return nil, err
		}
		if total, err = G.Add(total, term); err != nil {
			return nil, err
		}
	}
	grads, err := differentiate(total, ns)
	if err != nil {
		return nil, err
	}
	return values(grads), nil
}

// values wraps nodes as Values.
func values(ns G.Nodes) []backend.Value {
	out := make([]backend.Value, len(ns))
	for i, n := range ns {
		out[i] = value{n}
	}
	return out
}

func (o *graphOps) RandomUniformFrom(seed backend.Value, s backend.Shape) (backend.Value, error) {
	n := node(seed)
	dtype := o.DType()
	op := newHostOp("RandomUniformFrom", tensor.Shape(s).Clone(), o.dtype, []*G.Node{n}, func(out *tensor.Dense, in []*tensor.Dense) error {
		words := make([]float64, 2)
		switch v := in[0].Data().(type) {
		case []float32:
			words[0], words[1] = float64(v[0]), float64(v[1])
		case []float64:
			copy(words, v)
		}
		s0, s1 := backend.SeedWords(words)
		values := backend.SeededUniform(s0, s1, out.Shape().TotalSize(), dtype)
		switch d := out.Data().(type) {
		case []float32:
			for i, v := range values {
				d[i] = float32(v)
			}
		case []float64:
			copy(d, values)
		}
		return nil
	})
	return wrap(op.apply(n))
}
