package regularizers_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/regularizers"
)

// refPenalty is Keras's formula of each regularizer (keras/src/regularizers/
// regularizers.py), in float64 on the host: the independent reference.
func refPenalty(r regularizers.Regularizer, x backendtest.Array) float64 {
	sumAbs, sumSq := 0.0, 0.0
	for _, v := range x.Data {
		sumAbs += math.Abs(v)
		sumSq += v * v
	}
	switch r := r.(type) {
	case regularizers.L1:
		f := r.L1
		if f == 0 {
			f = 0.01
		}
		return f * sumAbs
	case regularizers.L2:
		f := r.L2
		if f == 0 {
			f = 0.01
		}
		return f * sumSq
	case regularizers.L1L2:
		return r.L1*sumAbs + r.L2*sumSq
	case regularizers.OrthogonalRegularizer:
		rows, cols, stride := x.Shape[0], x.Shape[1], x.Shape[1]
		at := func(i, j int) float64 { return x.Data[i*stride+j] }
		if r.Mode == "columns" {
			rows, cols = cols, rows
			at = func(i, j int) float64 { return x.Data[j*stride+i] }
		}
		norm := make([]float64, rows)
		for i := range rows {
			s := 0.0
			for j := range cols {
				s += at(i, j) * at(i, j)
			}
			norm[i] = math.Min(1/math.Sqrt(s), 1e7) // x * min(rsqrt(s), 1/epsilon)
		}
		sum := 0.0
		for i := range rows {
			for k := range rows {
				if i == k {
					continue
				}
				dot := 0.0
				for j := range cols {
					dot += at(i, j) * norm[i] * at(k, j) * norm[k]
				}
				sum += math.Abs(dot)
			}
		}
		f := r.Factor
		if f == 0 {
			f = 0.01
		}
		n := float64(rows)
		return f * 0.5 * sum / (n * (n - 1) / 2)
	}
	panic("no reference for " + r.ClassName())
}

var cases = []regularizers.Regularizer{
	regularizers.L1{}, regularizers.L1{L1: 0.3}, regularizers.L2{}, regularizers.L2{L2: 0.25},
	regularizers.L1L2{L1: 0.1, L2: 0.2}, regularizers.L1L2{L2: 0.5}, regularizers.L1L2{},
	regularizers.OrthogonalRegularizer{}, regularizers.OrthogonalRegularizer{Factor: 0.4, Mode: "columns"},
}

// Every regularizer's penalty equals Keras's formula in float64 (1e-9) and
// float32 (1e-5), its gradient passes the finite-difference check, and
// it survives Serialize and Deserialize as Keras writes it; on every
// engine.
func TestPenaltiesMatchKerasFormulas(t *testing.T) {
	x := backendtest.Random(7, -2, 2, 4, 3)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, r := range cases {
			t.Run(r.ClassName(), func(t *testing.T) {
				if err := regularizers.CheckShape(r, x.Shape); err != nil {
					t.Fatal(err)
				}
				want := backendtest.Array{Shape: backend.Shape{}, Data: []float64{refPenalty(r, x)}}
				fn := func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
					return []backend.Value{r.Penalty(b, in[0])}, nil
				}
				for _, c := range []struct {
					dt  backend.DType
					tol float64
				}{{backend.Float64, 1e-9}, {backend.Float32, 1e-5}} {
					got, err := backendtest.Eval(be, c.dt, fn, []backendtest.Array{x})
					if err != nil {
						t.Fatal(err)
					}
					backendtest.AssertClose(t, c.dt.String(), got[0], want, c.tol)
				}
				if (r != regularizers.L1L2{}) { // L1L2{} is the constant 0, as Keras's L1L2()
					backendtest.CheckGradient(t, be, func(b backend.Builder, in []backend.Value) backend.Value { return r.Penalty(b, in[0]) },
						[]backendtest.Array{x}, []int{0}, 1e-5)
				}

				saved, err := regularizers.Serialize(r)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := json.Marshal(saved)
				var decoded any
				if err := json.Unmarshal(raw, &decoded); err != nil {
					t.Fatal(err)
				}
				back, err := regularizers.Deserialize(decoded)
				if err != nil {
					t.Fatalf("%s: %v", raw, err)
				}
				got, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
					return []backend.Value{back.Penalty(b, in[0])}, nil
				}, []backendtest.Array{x})
				if err != nil {
					t.Fatal(err)
				}
				backendtest.AssertClose(t, "after a round trip through "+string(raw), got[0], want, 1e-9)
			})
		}
	})
}

// |x| has the gradient sign(x), 0 at 0, as Keras's ops.absolute: an L1
// penalty does not push a weight that is exactly 0 (a bias that starts at
// zeros, a weight NonNeg clipped).
func TestL1GradientIsZeroAtZero(t *testing.T) {
	x := backendtest.Array{Shape: backend.Shape{4}, Data: []float64{-1.5, 0, 2, 0}}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		got, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
			return b.Grad(regularizers.L1L2{L1: 0.5}.Penalty(b, in[0]), in[:1]), nil
		}, []backendtest.Array{x})
		if err != nil {
			t.Fatal(err)
		}
		backendtest.AssertClose(t, "gradient", got[0], backendtest.Array{Shape: backend.Shape{4}, Data: []float64{-0.5, 0, 0.5, 0}}, 1e-12)
	})
}

// Keras's identifiers and serialized forms read as Keras reads them; bad
// settings are errors that name the setting.
func TestDeserialize(t *testing.T) {
	for _, c := range []struct {
		in   any
		want regularizers.Regularizer
	}{
		{"l2", regularizers.L2{}}, {"L1", regularizers.L1{}}, {"l1l2", regularizers.L1L2{}},
		{"orthogonal_regularizer", regularizers.OrthogonalRegularizer{}},
		{map[string]any{"module": "keras.regularizers", "class_name": "L1", "config": map[string]any{"l1": 0.009999999776482582}, "registered_name": nil}, regularizers.L1{L1: 0.009999999776482582}},
		{map[string]any{"module": "keras.regularizers", "class_name": "L1L2", "config": map[string]any{"l1": 0.0, "l2": 0.3}}, regularizers.L1L2{L2: 0.3}},
		{map[string]any{"module": "keras.regularizers", "class_name": "OrthogonalRegularizer", "config": map[string]any{"factor": 0.5, "mode": "columns"}}, regularizers.OrthogonalRegularizer{Factor: 0.5, Mode: "columns"}},
	} {
		got, err := regularizers.Deserialize(c.in)
		if err != nil || got != c.want {
			t.Errorf("Deserialize(%v) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
	if r, err := regularizers.Deserialize(nil); r != nil || err != nil {
		t.Errorf("Deserialize(nil) = %v, %v; want nil, nil", r, err)
	}
	for _, c := range []struct {
		in   any
		want string
	}{
		{"l3", `unknown regularizer "l3"`},
		{map[string]any{"class_name": "L2", "config": map[string]any{"l2": -0.1}}, "l2 = -0.1: want a finite number >= 0"},
		{map[string]any{"class_name": "L2", "config": map[string]any{"l2": 0.1, "l1": 0.2}}, `option "l1"`},
		{map[string]any{"class_name": "OrthogonalRegularizer", "config": map[string]any{"mode": "diagonal"}}, `mode "diagonal"`},
		{map[string]any{"module": "my", "class_name": "Spectral", "config": map[string]any{}}, "kerasgo has no regularizer Spectral"},
		{42.0, "cannot read regularizer 42"},
	} {
		_, err := regularizers.Deserialize(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Deserialize(%v): %v, want an error containing %q", c.in, err, c.want)
		}
	}
	if err := regularizers.CheckShape(regularizers.OrthogonalRegularizer{}, backend.Shape{3, 3, 2}); err == nil || !strings.Contains(err.Error(), "matrix") {
		t.Errorf("OrthogonalRegularizer on a rank-3 weight: %v, want an error saying it takes a matrix", err)
	}
	if err := regularizers.CheckShape(regularizers.L2{L2: math.NaN()}, backend.Shape{3}); err == nil {
		t.Error("L2{NaN}: no error")
	}
}
