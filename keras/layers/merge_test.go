package layers_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// The merge layers match their definitions on three inputs (Subtract on
// two) and their gradients match finite differences, on every engine;
// inputs of different shapes are an error naming both.
func TestMergeLayers(t *testing.T) {
	a := backendtest.Random(1, -1, 1, 2, 3)
	b := backendtest.Random(2, -1, 1, 2, 3)
	c := backendtest.Random(3, -1, 1, 2, 3)
	cases := []struct {
		layer func() layers.Layer
		n     int
		ref   func(x []float64) float64
	}{
		{func() layers.Layer { return &layers.Add{} }, 3, func(x []float64) float64 { return x[0] + x[1] + x[2] }},
		{func() layers.Layer { return &layers.Subtract{} }, 2, func(x []float64) float64 { return x[0] - x[1] }},
		{func() layers.Layer { return &layers.Multiply{} }, 3, func(x []float64) float64 { return x[0] * x[1] * x[2] }},
		{func() layers.Layer { return &layers.Average{} }, 3, func(x []float64) float64 { return (x[0] + x[1] + x[2]) / 3 }},
		{func() layers.Layer { return &layers.Maximum{} }, 3, func(x []float64) float64 { return math.Max(x[0], math.Max(x[1], x[2])) }},
		{func() layers.Layer { return &layers.Minimum{} }, 3, func(x []float64) float64 { return math.Min(x[0], math.Min(x[1], x[2])) }},
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, cs := range cases {
			l := cs.layer()
			t.Run(l.ClassName(), func(t *testing.T) {
				ins := make([]*layers.KerasTensor, cs.n)
				for i := range ins {
					ins[i] = layers.Input(3)
				}
				if out := layers.Apply(l, ins...); out.Err() != nil {
					t.Fatal(out.Err())
				}
				in := []backendtest.Array{a, b, c}[:cs.n]
				fn := func(bl backend.Builder, v []backend.Value) backend.Value {
					return l.Call(layers.NewContext(bl, false, nil), v)
				}
				got, err := backendtest.Eval(be, backend.Float64, func(bl backend.Builder, v []backend.Value) ([]backend.Value, error) {
					return []backend.Value{fn(bl, v)}, nil
				}, in)
				if err != nil {
					t.Fatal(err)
				}
				want := backendtest.Array{Shape: a.Shape, Data: make([]float64, len(a.Data))}
				for i := range want.Data {
					x := []float64{a.Data[i], b.Data[i], c.Data[i]}
					want.Data[i] = cs.ref(x[:cs.n])
				}
				backendtest.AssertClose(t, l.ClassName(), got[0], want, 1e-12)
				wts := backendtest.Random(9, -1, 1, 2, 3)
				all := make([]int, cs.n)
				for i := range all {
					all[i] = i
				}
				backendtest.CheckGradient(t, be, func(bl backend.Builder, v []backend.Value) backend.Value {
					return bl.Sum(bl.Mul(fn(bl, v), bl.Constant(wts.Data, wts.Shape)))
				}, in, all, 1e-5)
			})
		}
	})
	out := layers.Apply(&layers.Add{}, layers.Input(3), layers.Input(4))
	if out.Err() == nil || !strings.Contains(out.Err().Error(), "(None, 3)") || !strings.Contains(out.Err().Error(), "(None, 4)") || !strings.Contains(out.Err().Error(), "Add") {
		t.Errorf("Add of (None, 3) and (None, 4): %v", out.Err())
	}
	if out := layers.Apply(&layers.Subtract{}, layers.Input(3), layers.Input(3), layers.Input(3)); out.Err() == nil {
		t.Error("Subtract of three inputs accepted")
	}
}
