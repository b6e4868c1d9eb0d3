package keras_test

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// The Go counterparts of the Keras catalogue's Lambda functions
// (scripts/keras-catalogue.py): double_plus_one, a named Python function,
// and the Python lambda of the layer named first_times_second.
func init() {
	if err := layers.RegisterLambda("double_plus_one", layers.LambdaFunc{
		Call: func(ctx *layers.Context, in []backend.Value) backend.Value {
			b := ctx.B
			return b.Add(b.Mul(in[0], b.Scalar(2)), b.Scalar(1))
		},
	}); err != nil {
		panic(err)
	}
	if err := layers.RegisterLambda("first_times_second", layers.LambdaFunc{
		Call: func(ctx *layers.Context, in []backend.Value) backend.Value {
			b, x := ctx.B, in[0] // (batch, steps, features) -> x[:, :, 0] * x[:, :, 1]
			s := x.Shape()
			column := func(j int) backend.Value {
				return b.Reshape(b.Slice(x, []int{0, 0, j}, []int{s[0], s[1], 1}), backend.Shape{s[0], s[1]})
			}
			return b.Mul(column(0), column(1))
		},
		OutputShape: func(in []backend.Shape) (backend.Shape, error) {
			return in[0][:2], nil
		},
	}); err != nil {
		panic(err)
	}
}
