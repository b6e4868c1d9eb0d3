package constraints_test

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/constraints"
)

// refApply is Keras's formula of each constraint (keras/src/constraints/
// constraints.py), in float64 on the host: the independent reference.
func refApply(c constraints.Constraint, w backendtest.Array) backendtest.Array {
	out := backendtest.Array{Shape: w.Shape.Clone(), Data: make([]float64, len(w.Data))}
	if _, ok := c.(constraints.NonNeg); ok {
		for i, v := range w.Data {
			out.Data[i] = math.Max(v, 0)
		}
		return out
	}
	var axis []int
	var desired func(n float64) float64
	switch c := c.(type) {
	case constraints.MaxNorm:
		axis = c.Axis
		max := c.MaxValue
		if max == 0 {
			max = 2
		}
		desired = func(n float64) float64 { return math.Min(math.Max(n, 0), max) }
	case constraints.MinMaxNorm:
		axis = c.Axis
		lo, hi, rate := c.MinValue, c.MaxValue, c.Rate
		if hi == 0 {
			hi = 1
		}
		if rate == 0 {
			rate = 1
		}
		desired = func(n float64) float64 { return rate*math.Min(math.Max(n, lo), hi) + (1-rate)*n }
	case constraints.UnitNorm:
		axis = c.Axis
		desired = func(float64) float64 { return 1 }
	}
	if len(axis) == 0 {
		axis = []int{0}
	}
	reduced := map[int]bool{}
	for _, a := range axis {
		if a < 0 {
			a += len(w.Shape)
		}
		reduced[a] = true
	}
	// key maps an element's index to its group: the index with the
	// reduced axes set to 0.
	strides := make([]int, len(w.Shape))
	s := 1
	for i := len(w.Shape) - 1; i >= 0; i-- {
		strides[i] = s
		s *= w.Shape[i]
	}
	key := func(i int) int {
		k := 0
		for d := range w.Shape {
			if !reduced[d] {
				k += (i / strides[d] % w.Shape[d]) * strides[d]
			}
		}
		return k
	}
	sq := map[int]float64{}
	for i, v := range w.Data {
		sq[key(i)] += v * v
	}
	for i, v := range w.Data {
		n := math.Sqrt(sq[key(i)])
		out.Data[i] = v * desired(n) / (1e-7 + n)
	}
	return out
}

var cases = []constraints.Constraint{
	constraints.MaxNorm{}, constraints.MaxNorm{MaxValue: 1.5, Axis: []int{1}}, constraints.MaxNorm{MaxValue: 1, Axis: []int{0, 1, 2}},
	constraints.MinMaxNorm{}, constraints.MinMaxNorm{MinValue: 1.2, MaxValue: 1.6, Rate: 0.5, Axis: []int{-1}},
	constraints.NonNeg{}, constraints.UnitNorm{}, constraints.UnitNorm{Axis: []int{0, 2}},
}

// Every constraint's effect equals Keras's formula in float64 (1e-9)
// and float32 (1e-5), on a weight of rank 4 (a Conv2D kernel) with norms
// on both sides of the bounds, and survives Serialize and Deserialize;
// on every engine.
func TestConstraintsMatchKerasFormulas(t *testing.T) {
	w := backendtest.Random(3, -1.5, 1.5, 3, 2, 2, 4)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range cases {
			t.Run(c.ClassName(), func(t *testing.T) {
				if err := c.CheckShape(w.Shape); err != nil {
					t.Fatal(err)
				}
				want := refApply(c, w)
				fn := func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
					return []backend.Value{c.Apply(b, in[0])}, nil
				}
				for _, p := range []struct {
					dt  backend.DType
					tol float64
				}{{backend.Float64, 1e-9}, {backend.Float32, 1e-5}} {
					got, err := backendtest.Eval(be, p.dt, fn, []backendtest.Array{w})
					if err != nil {
						t.Fatal(err)
					}
					backendtest.AssertClose(t, p.dt.String(), got[0], want, p.tol)
				}
				saved, err := constraints.Serialize(c)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := json.Marshal(saved)
				var decoded any
				if err := json.Unmarshal(raw, &decoded); err != nil {
					t.Fatal(err)
				}
				back, err := constraints.Deserialize(decoded)
				if err != nil {
					t.Fatalf("%s: %v", raw, err)
				}
				got, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
					return []backend.Value{back.Apply(b, in[0])}, nil
				}, []backendtest.Array{w})
				if err != nil {
					t.Fatal(err)
				}
				backendtest.AssertClose(t, "after a round trip through "+string(raw), got[0], want, 1e-9)
			})
		}
	})
}

// Keras's identifiers and serialized forms read as Keras reads them (an
// axis as an int or a list); bad settings are errors naming them.
func TestDeserialize(t *testing.T) {
	for _, c := range []struct {
		in   any
		want constraints.Constraint
	}{
		{"max_norm", constraints.MaxNorm{}}, {"NonNeg", constraints.NonNeg{}}, {"unit_norm", constraints.UnitNorm{}}, {"min_max_norm", constraints.MinMaxNorm{}},
		{map[string]any{"module": "keras.constraints", "class_name": "MaxNorm", "config": map[string]any{"max_value": 3.0, "axis": []any{0.0, 1.0}}, "registered_name": nil},
			constraints.MaxNorm{MaxValue: 3, Axis: []int{0, 1}}},
		{map[string]any{"class_name": "UnitNorm", "config": map[string]any{"axis": -1.0}}, constraints.UnitNorm{Axis: []int{-1}}},
		{map[string]any{"class_name": "NonNeg", "config": map[string]any{}}, constraints.NonNeg{}},
	} {
		got, err := constraints.Deserialize(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Deserialize(%v) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct {
		in   any
		want string
	}{
		{"clip", `unknown constraint "clip"`},
		{map[string]any{"class_name": "MaxNorm", "config": map[string]any{"axis": 0.5}}, `option "axis"`},
		{map[string]any{"class_name": "MaxNorm", "config": map[string]any{"max_value": 2.0, "norm": 1.0}}, `option "norm"`},
		{map[string]any{"class_name": "Clip", "config": map[string]any{}}, "kerasgo has no constraint Clip"},
	} {
		_, err := constraints.Deserialize(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Deserialize(%v): %v, want an error containing %q", c.in, err, c.want)
		}
	}
	for _, c := range []struct {
		c    constraints.Constraint
		want string
	}{
		{constraints.MaxNorm{Axis: []int{2}}, "axis [2] does not fit a weight of rank 2"},
		{constraints.UnitNorm{Axis: []int{0, 0}}, "give distinct axes"},
		{constraints.MaxNorm{MaxValue: math.Inf(1)}, "max_value = +Inf"},
		{constraints.MinMaxNorm{MinValue: 2, MaxValue: 1}, "min_value <= max_value"},
	} {
		if err := c.c.CheckShape(backend.Shape{3, 4}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%#v.CheckShape: %v, want an error containing %q", c.c, err, c.want)
		}
	}
}
