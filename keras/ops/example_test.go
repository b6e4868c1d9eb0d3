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

// Keras's ops.rearrange(x, "b (h h1) w -> b h (w h1)", h1=2): each pair
// of rows laid side by side, einops-style.
func ExampleRearrange() {
	be, err := backend.Open("gorgonia")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer be.Close()
	x := backendtest.Array{Shape: backend.Shape{1, 4, 2}, Data: []float64{1, 2, 3, 4, 5, 6, 7, 8}}
	out, err := backendtest.Eval(be, backend.Float64, func(b ops.Builder, in []ops.Value) ([]ops.Value, error) {
		return []ops.Value{ops.Rearrange(b, in[0], "b (h h1) w -> b h (w h1)", map[string]int{"h1": 2})}, b.Err()
	}, []backendtest.Array{x})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out[0].Shape, out[0].Data)
	// Output: (1, 2, 4) [1 3 2 4 5 7 6 8]
}

// Keras's ops.vectorize(f, signature="(n),(n)->()") over a batch of
// vector pairs: f, a dot product, is called on each pair.
func ExampleVectorize() {
	be, err := backend.Open("gorgonia")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer be.Close()
	x := backendtest.Array{Shape: backend.Shape{2, 3}, Data: []float64{1, 2, 3, 4, 5, 6}}
	out, err := backendtest.Eval(be, backend.Float64, func(b ops.Builder, in []ops.Value) ([]ops.Value, error) {
		dot := func(a ...ops.Value) []ops.Value { return []ops.Value{ops.Sum(b, ops.Multiply(b, a[0], a[1]))} }
		return ops.Vectorize(b, dot, "(n),(n)->()", in[0], in[0]), b.Err()
	}, []backendtest.Array{x})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out[0].Data)
	// Output: [14 77]
}

// Keras's ops.custom_gradient: a gradient reversal (the forward pass is
// the identity, the gradient is the upstream gradient negated), as
// domain-adversarial training uses it.
func ExampleCustomGradient() {
	be, err := backend.Open("gorgonia")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer be.Close()
	reverse := ops.CustomGradient(func(b ops.Builder, xs ...ops.Value) (ops.Value, ops.GradientFunc) {
		return xs[0], func(upstream ops.Value) []ops.Value { return []ops.Value{ops.Negative(b, upstream)} }
	})
	x := backendtest.Array{Shape: backend.Shape{3}, Data: []float64{1, 2, 3}}
	out, err := backendtest.Eval(be, backend.Float64, func(b ops.Builder, in []ops.Value) ([]ops.Value, error) {
		y := reverse(b, in[0])
		loss := ops.Sum(b, ops.Square(b, y))
		return []ops.Value{y, b.Grad(loss, []ops.Value{in[0]})[0]}, b.Err()
	}, []backendtest.Array{x})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out[0].Data, out[1].Data)
	// Output: [1 2 3] [-2 -4 -6]
}
