package ops

import "fmt"

// GradientFunc gives, from the gradient of a custom gradient's output
// (upstream, of the output's shape), the gradient of each of its inputs,
// in order: one per input, each of that input's shape, or nil for zero.
// It is built with the same Builder as the forward computation and may
// use the values that computation made.
type GradientFunc func(upstream Value) []Value

// CustomGradient is Keras's ops.custom_gradient decorator: f computes an
// output from xs and returns it with its gradient function, and the
// function CustomGradient returns calls f and gives that output, whose
// gradient is grad's instead of f's derivative:
//
//	log1pexp := ops.CustomGradient(func(b ops.Builder, xs ...ops.Value) (ops.Value, ops.GradientFunc) {
//		e := ops.Exp(b, xs[0])
//		grad := func(upstream ops.Value) []ops.Value {
//			return []ops.Value{ops.Multiply(b, upstream, ops.Subtract(b, b.Scalar(1), ops.Divide(b, b.Scalar(1), ops.Add(b, e, b.Scalar(1)))))}
//		}
//		return ops.Log(b, ops.Add(b, e, b.Scalar(1))), grad
//	})
//	y := log1pexp(b, x)
//
// No gradient flows through f's own ops, nor to a value f uses that is
// not among xs (take it as an input to give it a gradient). grad runs
// once for each Grad that reaches the output and may not call Grad
// itself. Differences from Keras: one output (Keras allows a nested
// structure of them), and grad takes only upstream (Keras's JAX and
// TensorFlow form; the values are in scope as Go closures).
func CustomGradient(f func(b Builder, xs ...Value) (Value, GradientFunc)) func(b Builder, xs ...Value) Value {
	return func(b Builder, xs ...Value) Value {
		names := make([]string, len(xs))
		for i := range names {
			names[i] = fmt.Sprintf("xs[%d]", i)
		}
		if missing(b, "CustomGradient", names, xs...) {
			return b.Fail(nil, b.Err())
		}
		if f == nil {
			return failf(b, "CustomGradient", nil, "f is nil: give the function that computes the output and its gradient function")
		}
		y, grad := f(b, xs...)
		if y == nil && b.Err() == nil {
			return failf(b, "CustomGradient", nil, "f returned no output: return the output and its gradient function")
		}
		if b.Err() != nil {
			return b.Fail(y.Shape(), b.Err())
		}
		if grad == nil {
			return failf(b, "CustomGradient", y.Shape(), "f returned no gradient function: return one that maps the output's gradient to one gradient per input")
		}
		return b.CustomGradient(xs, y, grad)
	}
}
