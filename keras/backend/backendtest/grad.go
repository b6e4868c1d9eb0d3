package backendtest

import (
	"fmt"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// CheckGradient compares the engine's Grad of a scalar loss with central
// finite differences (step 1e-6), both in float64, for the inputs listed in
// wrt. Layer, loss and optimizer tests use it on every engine.
func CheckGradient(t *testing.T, be backend.Backend, loss func(b backend.Builder, in []backend.Value) backend.Value, inputs []Array, wrt []int, tol float64) {
	t.Helper()
	got, err := Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		ws := make([]backend.Value, len(wrt))
		for i, k := range wrt {
			ws[i] = v[k]
		}
		return b.Grad(loss(b, v), ws), nil
	}, inputs)
	if err != nil {
		t.Fatal(err)
	}
	lossFn := func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		return []backend.Value{loss(b, v)}, nil
	}
	const h = 1e-6
	for gi, k := range wrt {
		num := Array{Shape: inputs[k].Shape, Data: make([]float64, len(inputs[k].Data))}
		for j := range num.Data {
			at := func(delta float64) float64 {
				in := cloneArrays(inputs)
				in[k].Data[j] += delta
				r, err := Eval(be, backend.Float64, lossFn, in)
				if err != nil {
					t.Fatal(err)
				}
				return r[0].Data[0]
			}
			num.Data[j] = (at(h) - at(-h)) / (2 * h)
		}
		AssertClose(t, fmt.Sprintf("gradient of input %d", k), got[gi], num, tol)
	}
}
