package gorgonia

import (
	"fmt"
	"hash"
	"sync/atomic"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// hostOp is a Gorgonia Op whose kernel is a plain Go function over dense
// tensors. The adapter uses it for ops Gorgonia lacks (ArgMax, OneHot), gets
// wrong for our purposes (random masks; see DESIGN.md on Dropout), or runs
// slowly. Each instance hashes uniquely so Gorgonia never merges two of them
// (two RandomUniform nodes of one shape must stay two).
type hostOp struct {
	name   string
	id     uint64
	inDims []int          // rank of each input
	inDTs  []tensor.Dtype // dtype of each input
	out    tensor.Shape   // result shape
	dtype  tensor.Dtype   // result dtype
	kernel func(out *tensor.Dense, in []*tensor.Dense) error
	// diff returns the gradient of each input given the output's gradient;
	// nil means the op is not differentiable.
	diff func(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error)
	// wrt says which inputs diff differentiates (nil: all of them); the
	// others get nil gradients.
	wrt []bool
	// failure is the kernel's error in the run under way (a program runs
	// one call at a time), for program.kernelFailure.
	failure *kernelError
	// buf is the result tensor, reused from run to run: kernels overwrite
	// every value. It is safe because a program's outputs are copied out
	// after each run (program.Run) and nothing else outlives a run.
	buf *tensor.Dense
	// scalars holds, for this run, the value of each scalar input by
	// position (scalar inputs reach kernels as nil tensors).
	scalars []float64
}

var hostOpIDs atomic.Uint64

func newHostOp(name string, out tensor.Shape, dtype tensor.Dtype, inputs []*G.Node,
	kernel func(out *tensor.Dense, in []*tensor.Dense) error) *hostOp {
	dims := make([]int, len(inputs))
	dts := make([]tensor.Dtype, len(inputs))
	for i, n := range inputs {
		dims[i], dts[i] = n.Shape().Dims(), n.Dtype()
	}
	return &hostOp{name: name, id: hostOpIDs.Add(1), inDims: dims, inDTs: dts, out: out, dtype: dtype, kernel: kernel}
}

func typeOfRank(dims int, of hm.Type) hm.Type {
	if dims == 0 {
		return of
	}
	return G.TensorType{Dims: dims, Of: of}
}

func (op *hostOp) Arity() int { return len(op.inDims) }

// Type gives the inputs and the result their dtypes: the compute dtype
// as a type variable, int32 inputs (token ids) as int32.
func (op *hostOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	ts := make([]hm.Type, 0, len(op.inDims)+1)
	for i, d := range op.inDims {
		var of hm.Type = a
		if op.inDTs[i] == tensor.Int32 {
			of = tensor.Int32
		}
		ts = append(ts, typeOfRank(d, of))
	}
	var out hm.Type = a
	if op.dtype == tensor.Int32 {
		out = tensor.Int32
	} else if !op.hasFloatInput() { // from int32 only (Cast): the compute dtype itself
		out = op.dtype
	}
	ts = append(ts, typeOfRank(op.out.Dims(), out))
	return hm.NewFnType(ts...)
}

func (op *hostOp) hasFloatInput() bool {
	for _, dt := range op.inDTs {
		if dt != tensor.Int32 {
			return true
		}
	}
	return false
}

func (op *hostOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.out.Clone(), nil }

func (op *hostOp) Do(vals ...G.Value) (G.Value, error) {
	in := make([]*tensor.Dense, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case *tensor.Dense:
			if x.RequiresIterator() { // a strided view: kernels want row-major data
				x = x.Materialize().(*tensor.Dense)
			}
			in[i] = x
		case G.Scalar: // passed as nil; kernels read op.scalars instead
			f, err := scalarFloat(x)
			if err != nil {
				return nil, fmt.Errorf("%s: input %d: %w", op.name, i, err)
			}
			if op.scalars == nil {
				op.scalars = make([]float64, len(vals))
			}
			op.scalars[i] = f
		default:
			return nil, fmt.Errorf("%s: input %d is %T, want a dense tensor", op.name, i, v)
		}
	}
	if op.buf == nil {
		op.buf = tensor.New(tensor.Of(op.dtype), tensor.WithShape(op.out.Clone()...), tensor.WithEngine(tensorEngine{}))
	}
	out := op.buf
	if err := op.kernel(out, in); err != nil {
		op.failure = &kernelError{fmt.Errorf("%s: %w", op.name, err)}
		return nil, op.failure
	}
	return out, nil
}

func (op *hostOp) ReturnsPtr() bool      { return false }
func (op *hostOp) CallsExtern() bool     { return false }
func (op *hostOp) OverwritesInput() int  { return -1 }
func (op *hostOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "kerasgo.%s#%d", op.name, op.id) }
func (op *hostOp) Hashcode() uint32      { return uint32(op.id*2654435761) ^ uint32(op.id>>32) }
func (op *hostOp) String() string        { return op.name }

// DiffWRT says no input is differentiable. Gorgonia's differentiation
// analysis reads it for every node on the loss's path, so even ops without
// a gradient must answer.
func (op *hostOp) DiffWRT(n int) []bool { return make([]bool, n) }

// SymDiff is never called for an op whose DiffWRT is all false.
func (op *hostOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("%s is not differentiable", op.name)
}

// diffHostOp is a hostOp with a gradient. It is a separate type because
// Gorgonia decides differentiability from DiffWRT.
type diffHostOp struct{ *hostOp }

func (op diffHostOp) DiffWRT(n int) []bool {
	if op.wrt != nil {
		return append([]bool(nil), op.wrt...)
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

func (op diffHostOp) SymDiff(inputs G.Nodes, output, grad *G.Node) (G.Nodes, error) {
	return op.diff(inputs, output, grad)
}

// apply adds op to the graph over inputs (at least one: Gorgonia finds the
// graph through them).
func (op *hostOp) apply(inputs ...*G.Node) (*G.Node, error) {
	if op.diff != nil {
		return G.ApplyOp(diffHostOp{op}, inputs...)
	}
	return G.ApplyOp(op, inputs...)
}

var (
	_ G.SDOp = (*hostOp)(nil)
	_ G.SDOp = diffHostOp{}
)

// scalarFloat returns a float scalar's value.
func scalarFloat(s G.Scalar) (float64, error) {
	switch v := s.Data().(type) {
	case float32:
		return float64(v), nil
	case float64:
		return v, nil
	}
	return 0, fmt.Errorf("scalar of type %T, want float32 or float64", s.Data())
}

// kernelError is a host kernel's failure while the graph runs; Run
// reports it without the machine's instruction listing around it
// (program.kernelFailure finds it through hostOp.failure).
type kernelError struct{ err error }

func (e *kernelError) Error() string { return e.err.Error() }
func (e *kernelError) Unwrap() error { return e.err }
