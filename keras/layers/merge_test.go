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

// Elementwise merges broadcast as Keras's Merge does: a per-channel
// (1, 1, c) input scales every pixel of an (h, w, c) image, with
// gradients for both; different ranks are refused with the fix.
func TestMergeBroadcasts(t *testing.T) {
	img := backendtest.Random(4, -1, 1, 2, 3, 2, 4)
	ch := backendtest.Random(5, -1, 1, 2, 1, 1, 4)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		l := &layers.Multiply{}
		out := layers.Apply(l, layers.Input(3, 2, 4), layers.Input(1, 1, 4))
		if out.Err() != nil {
			t.Fatal(out.Err())
		}
		if got := out.Shape(); !got.Equal(backend.Shape{-1, 3, 2, 4}) {
			t.Fatalf("Multiply of (None, 3, 2, 4) and (None, 1, 1, 4) has shape %v", got)
		}
		fn := func(bl backend.Builder, v []backend.Value) backend.Value {
			return l.Call(layers.NewContext(bl, false, nil), v)
		}
		got, err := backendtest.Eval(be, backend.Float64, func(bl backend.Builder, v []backend.Value) ([]backend.Value, error) {
			return []backend.Value{fn(bl, v)}, nil
		}, []backendtest.Array{img, ch})
		if err != nil {
			t.Fatal(err)
		}
		want := backendtest.Array{Shape: img.Shape, Data: make([]float64, len(img.Data))}
		for i := range want.Data {
			want.Data[i] = img.Data[i] * ch.Data[(i/24)*4+i%4]
		}
		backendtest.AssertClose(t, "Multiply", got[0], want, 1e-12)
		wts := backendtest.Random(9, -1, 1, 2, 3, 2, 4)
		backendtest.CheckGradient(t, be, func(bl backend.Builder, v []backend.Value) backend.Value {
			return bl.Sum(bl.Mul(fn(bl, v), bl.Constant(wts.Data, wts.Shape)))
		}, []backendtest.Array{img, ch}, []int{0, 1}, 1e-5)
	})
	out := layers.Apply(&layers.Add{}, layers.Input(3, 4), layers.Input(4))
	if out.Err() == nil || !strings.Contains(out.Err().Error(), "same rank") || !strings.Contains(out.Err().Error(), "Reshape") {
		t.Errorf("Add of (None, 3, 4) and (None, 4): %v", out.Err())
	}
}

// Concatenate joins along the last axis by default and along any other
// axis given; gradients match finite differences on every engine, and
// inputs that differ off the axis are an error naming the shapes.
func TestConcatenate(t *testing.T) {
	a := backendtest.Random(1, -1, 1, 2, 3, 2)
	b := backendtest.Random(2, -1, 1, 2, 1, 2)
	cases := []struct {
		layer  *layers.Concatenate
		shapes [][]int
		in     []backendtest.Array
		want   backend.Shape
	}{
		{&layers.Concatenate{}, [][]int{{3, 2}, {3, 2}}, []backendtest.Array{a, a}, backend.Shape{-1, 3, 4}},
		{&layers.Concatenate{Axis: 1}, [][]int{{3, 2}, {1, 2}}, []backendtest.Array{a, b}, backend.Shape{-1, 4, 2}},
		{&layers.Concatenate{Axis: -2}, [][]int{{3, 2}, {1, 2}, {3, 2}}, []backendtest.Array{a, b, a}, backend.Shape{-1, 7, 2}},
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range cases {
			ins := make([]*layers.KerasTensor, len(c.shapes))
			for i, s := range c.shapes {
				ins[i] = layers.Input(s...)
			}
			out := layers.Apply(c.layer, ins...)
			if out.Err() != nil || !out.Shape().Equal(c.want) {
				t.Fatalf("Concatenate{Axis: %d} of %v: %v %v, want %v", c.layer.Axis, c.shapes, out.Shape(), out.Err(), c.want)
			}
			fn := func(bl backend.Builder, v []backend.Value) backend.Value {
				return c.layer.Call(layers.NewContext(bl, false, nil), v)
			}
			got, err := backendtest.Eval(be, backend.Float64, func(bl backend.Builder, v []backend.Value) ([]backend.Value, error) {
				return []backend.Value{fn(bl, v)}, nil
			}, c.in)
			if err != nil {
				t.Fatal(err)
			}
			// Sample by sample, the inputs' values one after the other
			// along the axis.
			axis := len(c.want) - 1
			if c.layer.Axis != 0 {
				axis = (c.layer.Axis + len(c.want)) % len(c.want)
			}
			var want []float64
			for n := 0; n < 2; n++ {
				for _, x := range c.in {
					inner := backend.Shape(x.Shape[axis:]).Size()
					outer := len(x.Data) / inner / 2
					for o := 0; o < outer; o++ {
						start := (n*outer + o) * inner
						want = append(want, x.Data[start:start+inner]...)
					}
				}
			}
			if axis == len(c.want)-1 { // interleave rows for the last axis
				want = want[:0]
				rows := len(c.in[0].Data) / c.in[0].Shape[len(c.in[0].Shape)-1]
				for r := 0; r < rows; r++ {
					for _, x := range c.in {
						w := x.Shape[len(x.Shape)-1]
						want = append(want, x.Data[r*w:(r+1)*w]...)
					}
				}
			}
			shape := append(backend.Shape{2}, c.want[1:]...)
			backendtest.AssertClose(t, "Concatenate", got[0], backendtest.Array{Shape: shape, Data: want}, 0)
			wts := backendtest.Random(9, -1, 1, shape...)
			all := make([]int, len(c.in))
			for i := range all {
				all[i] = i
			}
			backendtest.CheckGradient(t, be, func(bl backend.Builder, v []backend.Value) backend.Value {
				return bl.Sum(bl.Mul(fn(bl, v), bl.Constant(wts.Data, wts.Shape)))
			}, c.in, all, 1e-5)
		}
	})
	out := layers.Apply(&layers.Concatenate{}, layers.Input(4, 4, 1), layers.Input(4, 5, 1))
	if out.Err() == nil || !strings.Contains(out.Err().Error(), "(None, 4, 4, 1)") || !strings.Contains(out.Err().Error(), "(None, 4, 5, 1)") || !strings.Contains(out.Err().Error(), "Concatenate") {
		t.Errorf("Concatenate of (None, 4, 4, 1) and (None, 4, 5, 1): %v", out.Err())
	}
}

// Dot checks that the axes match, naming both shapes.
func TestDotErrors(t *testing.T) {
	out := layers.Apply(&layers.Dot{Axes: [2]int{2, 2}}, layers.Input(3, 4), layers.Input(5, 6))
	if out.Err() == nil || !strings.Contains(out.Err().Error(), "axis 2 of (None, 3, 4) has size 4, axis 2 of (None, 5, 6) has 6") {
		t.Errorf("Dot of mismatched axes: %v", out.Err())
	}
	if out := layers.Apply(&layers.Dot{}, layers.Input(3)); out.Err() == nil || !strings.Contains(out.Err().Error(), "exactly 2 inputs") {
		t.Errorf("Dot of one input: %v", out.Err())
	}
}
