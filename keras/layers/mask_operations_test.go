package layers_test

import (
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// The operations Keras 3 writes for Masking's mask, NotEqual then Any,
// on every engine, with and without keepdims.
func TestMaskOperations(t *testing.T) {
	x := backendtest.Array{Shape: backend.Shape{2, 3}, Data: []float64{0, 0, 0, 0, 2, 0}}
	for _, keep := range []bool{false, true} {
		ne, an := &layers.NotEqual{}, &layers.Any{Axis: -1, KeepDims: keep}
		out := layers.Apply(an, layers.Apply(ne, layers.Input(3)))
		want := backendtest.Array{Shape: backend.Shape{2}, Data: []float64{0, 1}}
		if keep {
			want.Shape = backend.Shape{2, 1}
		}
		if out.Err() != nil || !out.Shape().Equal(append(backend.Shape{-1}, want.Shape[1:]...)) {
			t.Fatalf("keepdims %v: shape %v, %v", keep, out.Shape(), out.Err())
		}
		backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
			got, err := backendtest.Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
				ctx := layers.NewContext(b, false, nil)
				return []backend.Value{an.Call(ctx, []backend.Value{ne.Call(ctx, v)})}, nil
			}, []backendtest.Array{x})
			if err != nil {
				t.Fatal(err)
			}
			backendtest.AssertClose(t, "Any(NotEqual(x, 0))", got[0], want, 0)
		})
	}
}
