package gorgonia

import (
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/kerasgo/kerasgo/internal/kernels"
)

// tensorEngine is Gorgonia's CPU engine with one change: the sum of two
// dense float tensors of one shape runs on every core (kernels.Add).
// Gorgonia's own engine adds on one goroutine, after copying the first
// operand when the sum needs a new tensor; Gorgonia adds with it the
// gradients of a value read twice (a residual block's input, whose
// gradient comes back through both branches), and Keras's Add layer. The
// values are the same: each is one float addition. Anything else (other
// dtypes, broadcasts, strided views, WithIncr) goes to Gorgonia's engine.
//
// The tape machine gives it to the values it allocates, and host ops to
// their outputs; tensor.Add uses its first operand's engine.
type tensorEngine struct{ G.StandardEngine }

// Add is a + b, with tensor.Add's options: WithReuse writes the sum there,
// UseUnsafe into a, and otherwise it goes into a new tensor.
func (e tensorEngine) Add(a, b tensor.Tensor, opts ...tensor.FuncOpt) (tensor.Tensor, error) {
	if sum, ok := e.addDense(a, b, opts); ok {
		return sum, nil
	}
	return e.StandardEngine.Add(a, b, opts...)
}

// addDense adds where the operands are row-major float tensors of one
// shape (and the destination too); ok is false where it left them alone.
func (e tensorEngine) addDense(a, b tensor.Tensor, opts []tensor.FuncOpt) (sum *tensor.Dense, ok bool) {
	x, okA := a.(*tensor.Dense)
	y, okB := b.(*tensor.Dense)
	if !okA || !okB || x.Dtype() != y.Dtype() || !x.Shape().Eq(y.Shape()) || x.RequiresIterator() || y.RequiresIterator() {
		return nil, false
	}
	if x.Dtype() != tensor.Float32 && x.Dtype() != tensor.Float64 {
		return nil, false
	}
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
		sum = r
	case !fo.Safe():
		sum = x
	default:
		sum = tensor.New(tensor.Of(x.Dtype()), tensor.WithShape(x.Shape().Clone()...), tensor.WithEngine(e))
	}
	switch d := sum.Data().(type) {
	case []float32:
		kernels.Add(d, x.Data().([]float32), y.Data().([]float32))
	case []float64:
		kernels.Add(d, x.Data().([]float64), y.Data().([]float64))
	}
	return sum, true
}
