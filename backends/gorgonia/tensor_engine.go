package gorgonia

import (
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/kerasgo/kerasgo/internal/kernels"
)

// tensorEngine is Gorgonia's CPU engine with these changes: the sum,
// difference, product and quotient of two dense float tensors of one
// shape, and a dense float tensor times a scalar, run on every core
// (kernels.Add, Sub, Mul, Div, ScaleInto). Gorgonia's own engine computes them on one goroutine, after
// copying the first operand when the result needs a new tensor; Gorgonia
// adds with it the gradients of a value read twice (a residual block's
// input, whose gradient comes back through both branches), Keras's Add
// layer, and an optimizer's updates (SGD's p - lr*g, on every weight: on
// FCN-5's 55M-value kernels these copies took a third of the step), and
// the cross-entropy's products and quotients over the LSTM language
// models' 41M probabilities. The
// values are the same: each is one float operation. Anything else (other
// dtypes, broadcasts, strided views, WithIncr) goes to Gorgonia's engine.
//
// The tape machine gives it to the values it allocates, the engine to
// the tensors it makes from host data, and host ops to their outputs;
// tensor.Add and the others use their first operand's engine.
type tensorEngine struct{ G.StandardEngine }

// Add is a + b, with tensor.Add's options: WithReuse writes the sum there,
// UseUnsafe into a, and otherwise it goes into a new tensor.
func (e tensorEngine) Add(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	return e.binary(a, b, opts, kernels.Add[float32], kernels.Add[float64], e.StandardEngine.Add)
}

// Sub is a - b, with tensor.Sub's options, as Add.
func (e tensorEngine) Sub(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	return e.binary(a, b, opts, kernels.Sub[float32], kernels.Sub[float64], e.StandardEngine.Sub)
}

// Mul is a * b, value by value, with tensor.Mul's options, as Add.
func (e tensorEngine) Mul(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	return e.binary(a, b, opts, kernels.Mul[float32], kernels.Mul[float64], e.StandardEngine.Mul)
}

// Div is a / b, value by value, with tensor.Div's options, as Add.
func (e tensorEngine) Div(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	return e.binary(a, b, opts, kernels.Div[float32], kernels.Div[float64], e.StandardEngine.Div)
}

// MulScalar is t times the scalar s (a number or a tensor of one value),
// on either side, with tensor.Mul's options, as Add.
func (e tensorEngine) MulScalar(t tensor.Tensor, s interface{}, leftTensor bool, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	if prod, ok := e.scaled(t, s, opts); ok {
		return prod, nil
	}
	return e.StandardEngine.MulScalar(t, s, leftTensor, opts...)
}

// scaled multiplies a dense float tensor by a scalar of its dtype; ok is
// false where it left them alone.
func (e tensorEngine) scaled(t tensor.Tensor, s interface{}, opts []tensor.FuncOpt) (out *tensor.Dense, ok bool) {
	x, ok := plainFloat(t)
	if !ok {
		return nil, false
	}
	if st, isTensor := s.(tensor.Tensor); isTensor {
		if st.Shape().TotalSize() != 1 {
			return nil, false
		}
		s = st.Data()
		if v, isSlice := s.([]float32); isSlice {
			s = v[0]
		}
		if v, isSlice := s.([]float64); isSlice {
			s = v[0]
		}
	}
	switch k := s.(type) {
	case float32:
		if x.Dtype() != tensor.Float32 {
			return nil, false
		}
		if out, ok = e.destination(x, opts); ok {
			kernels.ScaleInto(out.Data().([]float32), x.Data().([]float32), k)
		}
	case float64:
		if x.Dtype() != tensor.Float64 {
			return nil, false
		}
		if out, ok = e.destination(x, opts); ok {
			kernels.ScaleInto(out.Data().([]float64), x.Data().([]float64), k)
		}
	default:
		return nil, false
	}
	return out, ok
}

// binary applies f32 or f64 where elementwise can, and gorgonias (the
// standard engine's method) elsewhere.
func (e tensorEngine) binary(a, b tensor.Tensor, opts []tensor.FuncOpt, f32 func(dst, a, b []float32), f64 func(dst, a, b []float64),
	gorgonias func(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error)) (tensor.Tensor, error) {
	if out, ok := e.elementwise(a, b, opts, f32, f64); ok {
		return out, nil
	}
	return gorgonias(a, b, opts...)
}

// elementwise applies f32 or f64 (dst, a, b) where the operands are
// row-major float tensors of one shape (and the destination too); ok is
// false where it left them alone.
func (e tensorEngine) elementwise(a, b tensor.Tensor, opts []tensor.FuncOpt, f32 func(dst, a, b []float32), f64 func(dst, a, b []float64)) (out *tensor.Dense, ok bool) {
	x, okA := plainFloat(a)
	y, okB := plainFloat(b)
	if !okA || !okB || x.Dtype() != y.Dtype() || !x.Shape().Eq(y.Shape()) {
		return nil, false
	}
	if out, ok = e.destination(x, opts); !ok {
		return nil, false
	}
	switch d := out.Data().(type) {
	case []float32:
		f32(d, x.Data().([]float32), y.Data().([]float32))
	case []float64:
		f64(d, x.Data().([]float64), y.Data().([]float64))
	}
	return out, true
}

// plainFloat returns t as a row-major float32 or float64 Dense.
func plainFloat(t tensor.Tensor) (*tensor.Dense, bool) {
	d, ok := t.(*tensor.Dense)
	if !ok || d.RequiresIterator() || (d.Dtype() != tensor.Float32 && d.Dtype() != tensor.Float64) {
		return nil, false
	}
	return d, true
}

// destination is where a result shaped as x goes under opts: the reuse
// tensor, x itself (UseUnsafe), or a new tensor; ok is false for options
// it leaves to Gorgonia (WithIncr, a reuse tensor of another kind).
func (e tensorEngine) destination(x *tensor.Dense, opts []tensor.FuncOpt) (*tensor.Dense, bool) {
	fo := tensor.ParseFuncOpts(opts...)
	if fo.Incr() != nil {
		return nil, false
	}
	switch reuse := fo.Reuse(); {
	case reuse != nil:
		r, ok := reuse.(*tensor.Dense)
		if !ok || r.Dtype() != x.Dtype() || !r.Shape().Eq(x.Shape()) || r.RequiresIterator() {
			return nil, false
		}
		return r, true
	case !fo.Safe():
		return x, true
	}
	return tensor.New(tensor.Of(x.Dtype()), tensor.WithShape(x.Shape().Clone()...), tensor.WithEngine(e)), true
}
