package layers

import "github.com/kerasgo/kerasgo/keras/backend"

// Average averages its inputs, like keras.layers.Average.
type Average struct{ merge }

// ClassName returns "Average".
func (*Average) ClassName() string { return "Average" }

// Call averages the inputs.
func (m *Average) Call(ctx *Context, in []backend.Value) backend.Value {
	return ctx.B.Mul(m.fold(ctx, in, backend.Builder.Add), ctx.B.Scalar(1/float64(len(in))))
}
