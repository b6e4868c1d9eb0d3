package layers

import "github.com/kerasgo/kerasgo/keras/backend"

// Multiply multiplies its inputs element by element, like
// keras.layers.Multiply. With masks, as Keras's: an input's padding steps
// count as 1, and when every input has a mask, the steps that are
// padding in all of them are 0.
type Multiply struct{ merge }

// ClassName returns "Multiply".
func (*Multiply) ClassName() string { return "Multiply" }

// Call multiplies the inputs.
func (m *Multiply) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	var out, outMask backend.Value
	all := true
	for i := range in {
		all = all && ctx.Mask(i) != nil
	}
	for i, x := range in {
		if mk := stepsMask(b, ctx.Mask(i), x); mk != nil {
			x = b.Where(mk, x, b.Scalar(1))
			if all {
				outMask = orMask(b, outMask, mk)
			}
		}
		if out == nil {
			out = x
		} else {
			out = b.Mul(out, x)
		}
	}
	if outMask != nil {
		out = b.Where(outMask, out, b.Scalar(0))
	}
	return out
}
