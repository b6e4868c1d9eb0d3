package backend

import "fmt"

// CustomGradient checks the arguments, then lets the engine tie vjp to
// forward; vjp's results are checked (one per input, each of its input's
// shape, nil made zero) before the engine sees them.
func (c *checked) CustomGradient(inputs []Value, forward Value, vjp func(upstream Value) []Value) Value {
	if !c.ok(append([]Value{forward}, inputs...)...) {
		return failed{shape: shapeOf(forward), dtype: c.ops.DType()}
	}
	switch {
	case len(inputs) == 0:
		return c.fail(forward.Shape(), "CustomGradient needs at least one input to give a gradient for")
	case vjp == nil:
		return c.fail(forward.Shape(), "CustomGradient needs a gradient function (vjp is nil)")
	}
	checkedVJP := func(upstream Value) (grads []Value, err error) {
		c.inGradient++
		defer func() {
			c.inGradient--
			if err != nil && c.err == nil {
				// the Builder's first error, as an op's would be,
				// rather than the engine's report of its Grad failing
				c.fail(nil, "CustomGradient: %w", err)
				err = c.err
			}
		}()
		gs := vjp(upstream)
		if c.err != nil {
			return nil, c.err
		}
		if len(gs) != len(inputs) {
			return nil, fmt.Errorf("the gradient function returned %d gradients for %d inputs: return one per input (nil for none)", len(gs), len(inputs))
		}
		out := make([]Value, len(gs))
		for i, g := range gs {
			in := inputs[i].Shape()
			if g == nil {
				if out[i], err = c.ops.Constant(make([]float64, in.Size()), in.Clone()); err != nil {
					return nil, err
				}
				continue
			}
			if _, bad := g.(failed); bad {
				return nil, fmt.Errorf("the gradient for input %d is the result of a failed op", i)
			}
			if !g.Shape().Equal(in) || g.DType() != c.ops.DType() {
				return nil, fmt.Errorf("the gradient for input %d has shape %v (%v), but the input has shape %v (%v): return one gradient of each input's shape, in order", i, g.Shape(), g.DType(), in, c.ops.DType())
			}
			out[i] = g
		}
		return out, nil
	}
	return c.call("CustomGradient", forward.Shape(), func() (Value, error) {
		return c.ops.CustomGradient(inputs, forward, checkedVJP)
	})
}
