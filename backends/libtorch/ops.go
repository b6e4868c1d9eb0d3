//go:build libtorch

package libtorch

import (
	"errors"
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/sugarme/gotch"
	lib "github.com/sugarme/gotch/libtch"
	"github.com/sugarme/gotch/ts"
)

// value is a tensor computed during one Run, or a constant scalar from
// Builder.Scalar, kept as a number (isConst) so that ops with a constant
// operand use libtorch's scalar forms (AddScalar, ...) and make no tensor
// for it. A constant becomes a tensor only where an op needs one.
type value struct {
	t       *ts.Tensor
	shape   backend.Shape
	dtype   backend.DType
	isConst bool
	c       float64
	// updated marks an update op's result (AdamUpdate, SGDUpdate), in
	// memory no other tensor views: it may be leased (spares.go).
	updated bool
	// half is the half-precision dtype t holds a float32 value in
	// (autocast.go), or Float32 when t is float32; alt is the value in
	// another precision (altHalf), made once for the ops that need it.
	half, altHalf backend.DType
	alt           *ts.Tensor
	// num numbers the values a Run's ops made, from 1 in the order they
	// were made (0: not one of them); dropped is set once the Run freed
	// t, no later op reading it (lifetimes.go).
	num     int
	dropped bool
	// input numbers a Run's inputs, from 1 (0: not an input).
	input int
}

func (v *value) Shape() backend.Shape { return v.shape }
func (v *value) DType() backend.DType { return v.dtype }

// eagerOps implements backend.Ops by running each op at once. Every tensor
// it creates is recorded in the arena and freed when the Run ends, unless
// it is returned, or sooner, once no later op reads it (lifetimes.go).
type eagerOps struct {
	e       *engine
	p       *program // whose released outputs update ops may write into
	dtype   backend.DType
	arena   []*ts.Tensor
	scalars []*ts.Scalar
	// gradDone is set once the Func's last Grad has run: later ops are
	// not recorded. gradsLeft counts the Grads still to come
	// (TraceInfo.Grads); with several, each but the last keeps the
	// autograd graph, and the gradients are copied out of the leaves'
	// .grad, which are zeroed for the next.
	gradDone     bool
	gradsLeft    int
	severalGrads bool
	leaves       []*ts.Tensor // the inputs that track gradients
	// customs are the Run's CustomGradient results so far, in order.
	customs []customGradient
	// autocast is the half-precision dtype ops compute in and results
	// are rounded to (SetAutocast, autocast.go), Float32 for none;
	// operands is the precision ops take their operands in (autocast, or
	// Float32 for an op that computes in float32 on rounded values);
	// autocasts is set once autocast was, for keep to look at the
	// precision of what ops return.
	autocast, operands backend.DType
	autocasts          bool
	// life is the values made so far, for the program's lifetimes
	// (lifetimes.go); reads, in the first Run, each read as (value, op).
	life       tracked
	reads      [][2]int
	inputReads [][2]int // the first Run's reads of inputs, as (input, op)
	// inputs are the Run's input tensors; donated, those the caller gave
	// up (RunDonating; nil when none, or once the Run declined to write
	// into any: donation.go).
	inputs  []*tensor
	donated []bool
	// rehearsal is set in rehearse's Run, on inputs of no memory.
	rehearsal bool
	// extents caches the values' extents for donation (viewedLater).
	extents map[int]extent
	// wrote is set once an update was written into a donated input.
	wrote bool
	// pending holds, in a rehearsal, the results of the op in progress,
	// which its values no longer use (keep), to free at the next op.
	pending []*ts.Tensor
}

func (o *eagerOps) keep(t *ts.Tensor, err error, s backend.Shape) (backend.Value, error) {
	if err != nil {
		return nil, err
	}
	if o.rehearsal && t != nil {
		// The result gives way to a zero of no memory once the op is done
		// (BeginOp): a rehearsal holds one op's tensors at a time.
		o.pending = append(o.pending, t)
		if t, err = broadcastZero(s, o.dtype, o.e.device); err != nil {
			return nil, err
		}
	}
	return o.keepAsIs(t, s)
}

// keepAsIs is keep without a rehearsal's zero for t.
func (o *eagerOps) keepAsIs(t *ts.Tensor, s backend.Shape) (backend.Value, error) {
	o.arena = append(o.arena, t)
	v := &value{t: t, shape: s.Clone(), dtype: o.dtype}
	o.track(v)
	if o.autocasts {
		return v, o.roundResult(v)
	}
	return v, nil
}

// own returns a handle to t for a Run's output, which outlives the arena
// and has no autograd history: t itself, taken out of the arena, when the
// Run made it, it tracks no gradient (an update op's result, or anything
// after the last Grad) and no other output took it; otherwise a new,
// detached handle. Detaching every output made and later freed a second
// handle for each: an op and gotch's bookkeeping, twice, for each of a
// training step's parameters and optimizer slots.
func (o *eagerOps) own(t *ts.Tensor) (*ts.Tensor, error) {
	if tracks, err := t.RequiresGrad(); err == nil && !tracks {
		for i := len(o.arena) - 1; i >= 0; i-- {
			if o.arena[i] == t {
				o.arena[i] = nil
				return t, nil
			}
		}
	}
	return t.Detach(false)
}

// ctensor is t's libtorch handle, for libtch's C functions (gotch's at_*
// and kerasgo's own kg_*).
func ctensor(t *ts.Tensor) lib.Ctensor { return lib.Ctensor(t.Ctensor()) }

// tv returns v's tensor, making one for a constant; a failure panics,
// which the Builder reports as the op's error.
func (o *eagerOps) tv(v backend.Value) *ts.Tensor {
	t, err := o.tensor(v)
	if err != nil {
		panic(err)
	}
	return t
}

func (o *eagerOps) tensor(v backend.Value) (*ts.Tensor, error) {
	val := v.(*value)
	if err := o.read(val); err != nil {
		return nil, err
	}
	if val.t == nil && val.isConst {
		m, err := o.fromHost([]float64{val.c}, backend.Shape{})
		if err != nil {
			return nil, err
		}
		val.t, val.half = m.(*value).t, m.(*value).half
	}
	if o.autocasts {
		return o.inPrecision(val, o.operands)
	}
	return val.t, nil
}

// tensors is tensor of each of vs.
func (o *eagerOps) tensors(vs ...backend.Value) ([]*ts.Tensor, error) {
	out := make([]*ts.Tensor, len(vs))
	for i, v := range vs {
		t, err := o.tensor(v)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	return out, nil
}

// constant reports v's value if it is a constant scalar.
func constant(v backend.Value) (float64, bool) {
	val := v.(*value)
	return val.c, val.isConst
}

// scalar returns a libtorch Scalar for c: the cached one (sharedScalars),
// or, the cache full, one freed with the arena.
func (o *eagerOps) scalar(c float64) *ts.Scalar {
	if sc := sharedScalars.get(c); sc != nil {
		return sc
	}
	sc := ts.FloatScalar(c)
	o.scalars = append(o.scalars, sc)
	return sc
}

func (o *eagerOps) DType() backend.DType { return o.dtype }

func (o *eagerOps) fromHost(data []float64, s backend.Shape) (backend.Value, error) {
	var host *ts.Tensor
	var err error
	if o.dtype == backend.Float64 {
		host, err = ts.OfSlice(data)
	} else {
		f := make([]float32, len(data))
		for i, v := range data {
			f[i] = float32(v)
		}
		host, err = ts.OfSlice(f)
	}
	if err != nil {
		return nil, err
	}
	o.arena = append(o.arena, host)
	shaped, err := reshape(host, s)
	if err == nil && o.e.devName != "cpu" {
		o.arena = append(o.arena, shaped)
		shaped, err = shaped.ToDevice(o.e.device, kind(o.dtype), false, false, false)
	}
	return o.keep(shaped, err, s)
}

func (o *eagerOps) Scalar(v float64) (backend.Value, error) {
	return &value{shape: backend.Shape{}, dtype: o.dtype, isConst: true, c: v}, nil
}

func (o *eagerOps) Constant(data []float64, s backend.Shape) (backend.Value, error) {
	if allPositiveZero(data) {
		// A recurrent layer's zero initial state, every step: libtorch's
		// zeros on the device costs a few µs, an upload about 50.
		t, err := ts.Zeros(dims(s), kind(o.dtype), o.e.device)
		return o.keep(t, err, s)
	}
	return o.fromHost(data, s)
}

// allPositiveZero says whether every value is +0 (a -0 keeps its sign
// through the upload, and zeros would drop it).
func allPositiveZero(data []float64) bool {
	for _, v := range data {
		if v != 0 || math.Signbit(v) {
			return false
		}
	}
	return true
}

func (o *eagerOps) Unary(op backend.UnaryOp, x backend.Value) (backend.Value, error) {
	t, err := o.tensor(x)
	if err != nil {
		return nil, err
	}
	last := int64(len(x.Shape()) - 1)
	var r *ts.Tensor
	switch op {
	case backend.OpNeg:
		r, err = t.Neg(false)
	case backend.OpExp:
		r, err = t.Exp(false)
	case backend.OpLog:
		r, err = t.Log(false)
	case backend.OpSqrt:
		r, err = t.Sqrt(false)
	case backend.OpSquare:
		r, err = t.Square(false)
	case backend.OpRelu:
		r, err = t.Relu(false)
	case backend.OpSigmoid:
		r, err = t.Sigmoid(false)
	case backend.OpTanh:
		r, err = t.Tanh(false)
	case backend.OpSoftmax:
		r, err = t.Softmax(last, kind(o.dtype), false)
	case backend.OpLogSoftmax:
		r, err = t.LogSoftmax(last, kind(o.dtype), false)
	case backend.OpErf:
		r, err = t.Erf(false)
	case backend.OpSin:
		r, err = t.Sin(false)
	case backend.OpCos:
		r, err = t.Cos(false)
	case backend.OpFloor:
		r, err = t.Floor(false)
	case backend.OpAbs:
		r, err = t.Abs(false)
	case backend.OpLog1p:
		r, err = t.Log1p(false)
	case backend.OpExpm1:
		r, err = t.Expm1(false)
	case backend.OpAtan:
		r, err = t.Atan(false)
	case backend.OpErfInv:
		r, err = t.Erfinv(false)
	case backend.OpStopGradient:
		r, err = t.Detach(false)
	default:
		return nil, fmt.Errorf("unary op %v is not implemented by libtorch", op)
	}
	return o.keep(r, err, x.Shape())
}

// float casts a boolean comparison result to the Func's dtype.
func (o *eagerOps) float(t *ts.Tensor, err error) (*ts.Tensor, error) {
	if err != nil {
		return nil, err
	}
	o.arena = append(o.arena, t)
	return t.Totype(kind(o.dtype), false)
}

func (o *eagerOps) Binary(op backend.BinaryOp, a, b backend.Value, out backend.Shape) (backend.Value, error) {
	if v, done, err := o.binaryConst(op, a, b, out); done {
		return v, err
	}
	t, err := o.tensors(a, b)
	if err != nil {
		return nil, err
	}
	x, y := t[0], t[1]
	var r *ts.Tensor
	switch op {
	case backend.OpAdd:
		r, err = x.Add(y, false)
	case backend.OpSub:
		r, err = x.Sub(y, false)
	case backend.OpMul:
		r, err = x.Mul(y, false)
	case backend.OpDiv:
		r, err = x.Div(y, false)
	case backend.OpMaximum:
		r, err = x.Maximum(y, false)
	case backend.OpMinimum:
		r, err = x.Minimum(y, false)
	case backend.OpEqual:
		r, err = o.float(x.EqTensor(y, false))
	case backend.OpGreater:
		r, err = o.float(x.GtTensor(y, false))
	default:
		return nil, fmt.Errorf("binary op %v is not implemented by libtorch", op)
	}
	return o.keep(r, err, out)
}

// binaryConst computes ops with a constant scalar operand without making a
// tensor for it; done is false when the general path must run.
func (o *eagerOps) binaryConst(op backend.BinaryOp, a, b backend.Value, out backend.Shape) (backend.Value, bool, error) {
	ca, aConst := constant(a)
	cb, bConst := constant(b)
	if aConst && bConst { // fold two constants in Go
		f := map[backend.BinaryOp]func(x, y float64) float64{
			backend.OpAdd: func(x, y float64) float64 { return x + y }, backend.OpSub: func(x, y float64) float64 { return x - y },
			backend.OpMul: func(x, y float64) float64 { return x * y }, backend.OpDiv: func(x, y float64) float64 { return x / y },
			backend.OpMaximum: math.Max, backend.OpMinimum: math.Min,
		}[op]
		if f == nil {
			return nil, false, nil
		}
		return &value{shape: backend.Shape{}, dtype: o.dtype, isConst: true, c: f(ca, cb)}, true, nil
	}
	if !aConst && !bConst {
		return nil, false, nil
	}
	commutes := op == backend.OpAdd || op == backend.OpMul || op == backend.OpMaximum || op == backend.OpMinimum
	if aConst && commutes {
		a, b, cb, aConst = b, a, ca, false
	} else if aConst && op != backend.OpSub && op != backend.OpDiv {
		return nil, false, nil
	}
	if aConst { // c - x or c / x
		x := o.tv(b)
		var r *ts.Tensor
		var err error
		if op == backend.OpSub {
			r, err = x.RsubScalar(o.scalar(ca), false)
		} else {
			var inv *ts.Tensor
			if inv, err = x.Reciprocal(false); err == nil {
				o.arena = append(o.arena, inv)
				r, err = inv.MulScalar(o.scalar(ca), false)
			}
		}
		v, err := o.keep(r, err, out)
		return v, true, err
	}
	x, sc := o.tv(a), o.scalar(cb)
	var r *ts.Tensor
	var err error
	switch op {
	case backend.OpAdd:
		r, err = x.AddScalar(sc, false)
	case backend.OpSub:
		r, err = x.SubScalar(sc, false)
	case backend.OpMul:
		r, err = x.MulScalar(sc, false)
	case backend.OpDiv:
		r, err = x.DivScalar(sc, false)
	case backend.OpMaximum:
		r, err = x.ClampMin(sc, false)
	case backend.OpMinimum:
		r, err = x.ClampMax(sc, false)
	case backend.OpGreater:
		r, err = o.float(x.Gt(sc, false))
	default:
		return nil, false, nil
	}
	v, err := o.keep(r, err, out)
	return v, true, err
}

func (o *eagerOps) MatMul(a, b backend.Value) (backend.Value, error) {
	return o.matmul(a, b, backend.Shape{a.Shape()[0], b.Shape()[1]})
}

func (o *eagerOps) BatchMatMul(a, b backend.Value, out backend.Shape) (backend.Value, error) {
	return o.matmul(a, b, out)
}

// matmul is a·b, of shape out, from torch.matmul; a small one autocast
// to half precision on a CPU is computed by smallHalfProduct.
func (o *eagerOps) matmul(a, b backend.Value, out backend.Shape) (backend.Value, error) {
	x, y := o.tv(a), o.tv(b)
	if o.operands != backend.Float32 && o.e.devName == "cpu" && out.Size()*a.Shape()[len(a.Shape())-1] <= oneDNNMinProduct {
		return o.smallHalfProduct(x, y, out)
	}
	r, err := x.Matmul(y, false)
	return o.keep(r, err, out)
}

// oneDNNMinProduct is the size of the largest half-precision product
// (batch·m·k·n) libtorch 1.13 on a CPU leaves to its own kernel rather
// than oneDNN's (aten's mkldnn_gemm_min_size, 16³).
const oneDNNMinProduct = 16 * 16 * 16

// smallHalfProduct is the product of the half-precision x and y computed
// in float32 and rounded once, as oneDNN computes a larger one (and as
// XLA does): libtorch 1.13's own kernel for a small one rounds each
// term and each partial sum to bfloat16, and so misses the rounded exact
// product, by hundreds of units in the last place where terms cancel
// (measured 2026-12-06 with PyTorch 1.13: 176 of an 8x16·16x32
// product's 256 elements wrong, none of an 8x16·16x64 one's). A small
// product costs little in float32.
func (o *eagerOps) smallHalfProduct(x, y *ts.Tensor, out backend.Shape) (backend.Value, error) {
	x32, err := x.Totype(gotch.Float, false)
	if err != nil {
		return nil, err
	}
	o.arena = append(o.arena, x32)
	y32, err := y.Totype(gotch.Float, false)
	if err != nil {
		return nil, err
	}
	o.arena = append(o.arena, y32)
	r, err := x32.Matmul(y32, false)
	return o.keep(r, err, out) // rounded to the autocast dtype
}

func (o *eagerOps) Reduce(op backend.ReduceOp, x backend.Value, axes []int) (backend.Value, error) {
	ax := make([]int64, len(axes))
	for i, a := range axes {
		ax[i] = int64(a)
	}
	var r *ts.Tensor
	var err error
	if op == backend.OpMean {
		r, err = o.tv(x).MeanDim(ax, false, kind(o.dtype), false)
	} else {
		r, err = o.tv(x).SumDimIntlist(ax, false, kind(o.dtype), false)
	}
	return o.keep(r, err, backend.ReducedShape(x.Shape(), axes))
}

func (o *eagerOps) Reshape(x backend.Value, s backend.Shape) (backend.Value, error) {
	r, err := reshape(o.tv(x), s)
	return o.keep(r, err, s)
}

func (o *eagerOps) Concat(xs []backend.Value, axis int, out backend.Shape) (backend.Value, error) {
	parts := make([]*ts.Tensor, len(xs))
	for i, x := range xs {
		parts[i] = o.tv(x)
	}
	r, err := ts.Cat(parts, int64(axis))
	return o.keep(r, err, out)
}

// reshape is Reshape, also to a scalar shape (gotch's Reshape cannot take
// an empty shape).
func reshape(t *ts.Tensor, s backend.Shape) (*ts.Tensor, error) {
	if len(s) == 0 {
		return t.Squeeze(false)
	}
	return t.Reshape(dims(s), false)
}

func (o *eagerOps) ArgMax(x backend.Value) (backend.Value, error) {
	s := x.Shape()
	r, err := o.float(o.tv(x).Argmax([]int64{int64(len(s) - 1)}, false, false))
	return o.keep(r, err, s[:len(s)-1])
}

func (o *eagerOps) OneHot(x backend.Value, depth int) (backend.Value, error) {
	idx, err := o.tv(x).Totype(gotch.Int64, false)
	if err != nil {
		return nil, err
	}
	o.arena = append(o.arena, idx)
	r, err := o.float(idx.OneHot(int64(depth), false))
	return o.keep(r, err, append(x.Shape().Clone(), depth))
}

func (o *eagerOps) RandomNormal(s backend.Shape) (backend.Value, error) {
	r, err := ts.Randn(dims(s), kind(o.dtype), o.e.device)
	return o.keep(r, err, s)
}

func (o *eagerOps) RandomUniform(s backend.Shape) (backend.Value, error) {
	r, err := ts.Rand(dims(s), kind(o.dtype), o.e.device)
	return o.keep(r, err, s)
}

// Grad back-propagates from loss into the inputs that track gradients and
// reads their .grad; after the Func's last Grad the Run is in no-grad
// mode (an optimizer update must not be recorded).
func (o *eagerOps) Grad(loss backend.Value, wrt []backend.Value) ([]backend.Value, error) {
	if o.gradDone {
		return nil, errors.New("Grad was called more times than the Func's trace counted: a Func must do the same on every call")
	}
	o.gradsLeft--
	last := o.gradsLeft <= 0
	keep := 1
	if last {
		o.gradDone, keep = true, 0
		o.checkLoss(loss)
	}
	if o.rehearsal { // its values have no history: zeros stand for the gradients
		o.tv(loss)
		if last {
			if _, err := ts.GradSetEnabled(false); err != nil {
				return nil, err
			}
		}
		out := make([]backend.Value, len(wrt))
		for i, w := range wrt {
			var err error
			if out[i], err = o.stands(w.Shape()); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if len(o.customs) > 0 {
		out, err := o.gradThroughCustoms(loss, wrt)
		if err == nil && last {
			_, err = ts.GradSetEnabled(false)
		}
		return out, err
	}
	if o.p.info.GradOther {
		out, err := o.gradOfValues(loss, wrt, keep)
		if err == nil && last {
			_, err = ts.GradSetEnabled(false)
		}
		return out, err
	}
	lib.AtBackward(ctensor(o.tv(loss)), keep, 0)
	if err := ts.TorchErr(); err != nil {
		return nil, err
	}
	if last {
		if _, err := ts.GradSetEnabled(false); err != nil {
			return nil, err
		}
	}
	if o.severalGrads {
		return o.copyGrads(wrt)
	}
	out := make([]backend.Value, len(wrt))
	for i, w := range wrt {
		g, err := w.(*value).t.Grad(false) // the leaf itself, not a cast of it (value.alt)
		if err != nil {
			return nil, err
		}
		defined, err := g.Defined()
		if err != nil {
			return nil, err
		}
		if !defined { // w does not influence loss: its gradient is zero
			o.arena = append(o.arena, g)
			g, err = ts.Zeros(dims(w.Shape()), kind(o.dtype), o.e.device)
			if err != nil {
				return nil, err
			}
		}
		if out[i], err = o.keep(g, nil, w.Shape()); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// gradOfValues is Grad for a Func that differentiates with respect to
// values computed inside it: libtorch's autograd engine run from loss to
// each w that has a history (torch.autograd.grad), nothing accumulated
// into a leaf's .grad. A w that does not depend on a tracked input, or
// that loss does not use, gets zeros.
func (o *eagerOps) gradOfValues(loss backend.Value, wrt []backend.Value, keepGraph int) ([]backend.Value, error) {
	out := make([]backend.Value, len(wrt))
	var live []lib.Ctensor
	var at []int
	for i, w := range wrt {
		if _, err := o.tensor(w); err != nil {
			return nil, err
		}
		t := w.(*value).t // the value as computed, not a cast of it (value.alt)
		if tracks, err := t.RequiresGrad(); err != nil {
			return nil, err
		} else if tracks {
			live, at = append(live, ctensor(t)), append(at, i)
		}
	}
	if len(live) > 0 {
		roots := []lib.Ctensor{ctensor(o.tv(loss))}
		grads := make([]lib.Ctensor, len(live)) // C pointers the engine fills
		lib.AtRunBackward(&roots[0], 1, &live[0], len(live), &grads[0], keepGraph, 0)
		if err := ts.TorchErr(); err != nil {
			return nil, err
		}
		for k, i := range at {
			g := ts.New(grads[k])
			defined, err := g.Defined()
			if err != nil || !defined {
				o.arena = append(o.arena, g) // freed with the step
				if err != nil {
					return nil, err
				}
				continue
			}
			if out[i], err = o.keep(g, nil, wrt[i].Shape()); err != nil {
				return nil, err
			}
		}
	}
	for i, w := range wrt {
		if out[i] == nil {
			z, err := ts.Zeros(dims(w.Shape()), kind(o.dtype), o.e.device)
			if err != nil {
				return nil, err
			}
			if out[i], err = o.keep(z, nil, w.Shape()); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// copyGrads returns copies of wrt's gradients and zeroes every leaf's
// .grad, so that the next Grad of the Func starts from zero.
func (o *eagerOps) copyGrads(wrt []backend.Value) ([]backend.Value, error) {
	out := make([]backend.Value, len(wrt))
	for i, w := range wrt {
		c, err := ts.Zeros(dims(w.Shape()), kind(o.dtype), o.e.device)
		if err != nil {
			return nil, err
		}
		o.arena = append(o.arena, c)
		g, err := w.(*value).t.Grad(false) // the leaf itself, not a cast of it
		if err != nil {
			return nil, err
		}
		o.arena = append(o.arena, g)
		if g.MustDefined() {
			lib.AtCopy_(ctensor(c), ctensor(g))
			if err := ts.TorchErr(); err != nil {
				return nil, err
			}
		}
		out[i] = &value{t: c, shape: w.Shape().Clone(), dtype: o.dtype}
	}
	for _, l := range o.leaves {
		g, err := l.Grad(false)
		if err != nil {
			return nil, err
		}
		o.arena = append(o.arena, g)
		if defined, err := g.Defined(); err == nil && defined {
			if err := g.Zero_(); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func (o *eagerOps) Where(cond, a, b backend.Value, out backend.Shape) (backend.Value, error) {
	t, err := o.tensors(cond, a, b)
	if err != nil {
		return nil, err
	}
	c, x, y := t[0], t[1], t[2]
	mask, err := c.Ne(o.scalar(0), false)
	if err != nil {
		return nil, err
	}
	o.arena = append(o.arena, mask)
	r, err := x.WhereSelf(mask, y, false)
	return o.keep(r, err, out)
}

// RandomUniformFrom reads the seed's two values to the host, draws there
// (backend.SeededUniform, the same numbers as on every engine) and
// uploads the samples.
func (o *eagerOps) RandomUniformFrom(seed backend.Value, s backend.Shape) (backend.Value, error) {
	c, err := o.tv(seed).DetachCopy(false)
	if err != nil {
		return nil, err
	}
	o.arena = append(o.arena, c)
	s0, s1 := backend.SeedWords(c.Float64Values(false))
	return o.fromHost(backend.SeededUniform(s0, s1, s.Size(), o.dtype), s)
}
