package ops

// Jvp is Keras's ops.jvp (jax.jvp) for a function of one output: it
// returns f(primals...) and the Jacobian-vector product of f at primals
// with tangents (one per primal, of its shape), the output's change for
// a step of tangents in the primals, of the output's shape. Keras's
// has_aux is f's closure: what else it computes it can keep in a
// variable of the caller.
//
// kerasgo's engines differentiate in reverse mode only, so Jvp takes one
// gradient per value of the output (as jax.jacrev would) and contracts
// it with tangents: exact, and cheap for the small outputs a jvp is
// usually taken of (a scalar loss, a few logits), but it grows with the
// output's size. The result itself is not differentiable again (it is
// made of gradients).
func Jvp(b Builder, f func(primals ...Value) Value, primals, tangents []Value) (out, tangentsOut Value) {
	const op = "Jvp"
	if len(primals) != len(tangents) {
		return failf(b, op, nil, "%d primals and %d tangents: give one tangent per primal", len(primals), len(tangents)), b.Fail(nil, b.Err())
	}
	for i := range primals {
		if primals[i] == nil || tangents[i] == nil {
			return failf(b, op, nil, "primal or tangent %d is nil", i), b.Fail(nil, b.Err())
		}
		if !primals[i].Shape().Equal(tangents[i].Shape()) {
			return failf(b, op, tangents[i].Shape(), "tangent %d has shape %v, its primal %v: give each tangent its primal's shape", i, tangents[i].Shape(), primals[i].Shape()), b.Fail(nil, b.Err())
		}
	}
	out = f(primals...)
	if out == nil {
		return failf(b, op, nil, "f returned nil"), b.Fail(nil, b.Err())
	}
	s := out.Shape()
	flat := b.Reshape(out, Shape{s.Size()})
	parts := make([]Value, s.Size())
	for k := range parts {
		grads := b.Grad(b.Reshape(b.Slice(flat, []int{k}, []int{1}), Shape{}), primals)
		var sum Value
		for i, g := range grads {
			term := b.Sum(b.Mul(g, b.StopGradient(tangents[i])))
			if sum == nil {
				sum = term
			} else {
				sum = b.Add(sum, term)
			}
		}
		parts[k] = b.Reshape(sum, Shape{1})
	}
	tangentsOut = b.Reshape(b.Concat(0, parts...), s.Clone())
	return out, tangentsOut
}
