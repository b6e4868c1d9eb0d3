package ops_test

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// Keras's ops.sum(ops.square(x - ops.mean(x, axis=-1, keepdims=True)),
// axis=-1) in Go, run on the default engine.
func Example() {
	be, err := backend.Open("gorgonia")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer be.Close()
	x := backendtest.Array{Shape: backend.Shape{2, 3}, Data: []float64{1, 2, 3, 2, 4, 6}}
	out, err := backendtest.Eval(be, backend.Float64, func(b ops.Builder, in []ops.Value) ([]ops.Value, error) {
		x := in[0]
		centred := ops.Subtract(b, x, ops.Mean(b, x, ops.Axis(-1), ops.KeepDims()))
		return []ops.Value{ops.Sum(b, ops.Square(b, centred), ops.Axis(-1))}, b.Err()
	}, []backendtest.Array{x})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out[0].Data)
	// Output: [2 8]
}
