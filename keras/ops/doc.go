// Package ops is Keras's keras.ops in Go: the tensor operations that
// layers, losses, metrics and a user's own code are written with, on every
// engine.
//
// # Calling an op
//
// An op is a function whose first argument is the [Builder] of the
// computation being built: ctx.B inside a layer's Call, the b of a loss,
// a metric, a train step or a [backend.Func]. Keras's
//
//	y = ops.sum(ops.square(x - m), axis=-1, keepdims=True)
//
// is, in Go,
//
//	y := ops.Sum(b, ops.Square(b, ops.Subtract(b, x, m)), ops.Axis(-1), ops.KeepDims())
//
// Names are Keras's in Go's spelling (log_softmax is LogSoftmax).
// Arguments keep Keras's meanings: axes may be negative, binary ops
// broadcast as NumPy does, reductions take Axis and KeepDims options
// (no Axis: every axis, as Keras's axis=None). An argument Keras gives a
// default is a Go argument you write out (Softmax(b, x, -1)) or an
// option.
//
// # Errors
//
// As with every Builder op, a bad argument (an axis out of range, shapes
// that do not broadcast, a negative size) does not panic: the first error
// is kept by the Builder, named after the op and its argument, and later
// ops return placeholders, so code calls ops freely and checks b.Err()
// once (a layer's Call need not check at all: the model reports it).
//
// # Dtypes: where kerasgo differs from Keras
//
// A computation has one float dtype (float32 or float64, the Builder's);
// int32 values (token ids) enter through Cast or as indices. So:
//   - comparisons, logical ops and isnan-style tests return 1 and 0 in
//     the float dtype, where Keras returns bools;
//   - ops that return indices (Argmax, Argsort, TopK's indices) return
//     whole numbers in the float dtype, where Keras returns int32;
//   - integer-only ops (bitwise_*, gcd, lcm, bincount) are not provided.
//
// # Differentiation
//
// An op is differentiable wherever Keras's is: gradients flow through
// arithmetic, reductions, shape ops and gathers, not through comparisons,
// rounding, indices or StopGradient. Each op's gradient is checked against
// finite differences, and its values against Keras 3 itself
// (testdata/golden.json, written by scripts/golden-ops.py).
//
// # Concurrency
//
// The functions hold no state; a Builder is used by one goroutine at a
// time, as it builds one computation.
package ops
