package activations_test

import (
	"math"
	"strings"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
)

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func softplus(x float64) float64 { return math.Log1p(math.Exp(x)) }

// references are Keras 3's definitions, elementwise, in float64.
var references = map[string]func(float64) float64{
	"linear":     func(x float64) float64 { return x },
	"relu":       func(x float64) float64 { return math.Max(x, 0) },
	"relu6":      func(x float64) float64 { return math.Min(math.Max(x, 0), 6) },
	"leaky_relu": func(x float64) float64 { return math.Max(x, 0.2*x) },
	"elu":        func(x float64) float64 { return map[bool]float64{true: x, false: math.Exp(x) - 1}[x > 0] },
	"selu": func(x float64) float64 {
		return 1.0507009873554805 * map[bool]float64{true: x, false: 1.6732632423543772 * (math.Exp(x) - 1)}[x > 0]
	},
	"silu":         func(x float64) float64 { return x * sigmoid(x) },
	"swish":        func(x float64) float64 { return x * sigmoid(x) },
	"sigmoid":      sigmoid,
	"hard_sigmoid": func(x float64) float64 { return math.Min(math.Max(x+3, 0), 6) / 6 },
	"hard_silu":    func(x float64) float64 { return x * math.Min(math.Max(x+3, 0), 6) / 6 },
	"tanh":         math.Tanh,
	"softplus":     softplus,
	"softsign":     func(x float64) float64 { return x / (1 + math.Abs(x)) },
	"exponential":  math.Exp,
	"mish":         func(x float64) float64 { return x * math.Tanh(softplus(x)) },
	"gelu":         func(x float64) float64 { return x / 2 * (1 + math.Erf(x/math.Sqrt2)) },
	"celu":         func(x float64) float64 { return math.Max(x, 0) + math.Min(0, math.Exp(x)-1) },
	"hard_shrink":  func(x float64) float64 { return map[bool]float64{true: x, false: 0}[math.Abs(x) > 0.5] },
	"hard_tanh":    func(x float64) float64 { return math.Min(math.Max(x, -1), 1) },
	"log_sigmoid":  func(x float64) float64 { return -softplus(-x) },
	"soft_shrink": func(x float64) float64 {
		return map[bool]float64{true: x - 0.5*math.Copysign(1, x), false: 0}[math.Abs(x) > 0.5]
	},
	"sparse_plus": func(x float64) float64 {
		switch {
		case x <= -1:
			return 0
		case x < 1:
			return (x + 1) * (x + 1) / 4
		}
		return x
	},
	"sparse_sigmoid": func(x float64) float64 { return (math.Min(math.Max(x, -1), 1) + 1) / 2 },
	"squareplus":     func(x float64) float64 { return (x + math.Sqrt(x*x+4)) / 2 },
	"tanh_shrink":    func(x float64) float64 { return x - math.Tanh(x) },
}

// Every elementwise activation matches Keras's definition (float64 within
// 1e-9, float32 within 1e-5) and its gradient matches finite differences,
// on every engine; inputs avoid the kinks by more than the difference step.
func TestActivations(t *testing.T) {
	x := backendtest.Array{Shape: backend.Shape{2, 7}, Data: []float64{-7.3, -3.1, -2.5, -0.7, -0.2, 0.3, 0.9, 1.4, 2.6, 3.3, 5.2, 6.4, 8.1, -4.4}}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for name, ref := range references {
			t.Run(name, func(t *testing.T) {
				f, err := activations.Get(name)
				if err != nil {
					t.Fatal(err)
				}
				want := backendtest.Array{Shape: x.Shape, Data: make([]float64, len(x.Data))}
				for i, v := range x.Data {
					want.Data[i] = ref(v)
				}
				for _, c := range []struct {
					dt  backend.DType
					tol float64
				}{{backend.Float64, 1e-9}, {backend.Float32, 1e-5}} {
					got, err := backendtest.Eval(be, c.dt, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
						return []backend.Value{f(b, v[0])}, nil
					}, []backendtest.Array{x})
					if err != nil {
						t.Fatal(err)
					}
					backendtest.AssertClose(t, name, got[0], want, c.tol*math.Max(1, maxAbs(want.Data)))
				}
				wts := backendtest.Random(3, -1, 1, 2, 7)
				backendtest.CheckGradient(t, be, func(b backend.Builder, v []backend.Value) backend.Value {
					return b.Sum(b.Mul(f(b, v[0]), b.Constant(wts.Data, wts.Shape)))
				}, []backendtest.Array{x}, []int{0}, 1e-5)
			})
		}
	})
}

// GeluApproximate is Keras's gelu(approximate=True), the tanh form.
func TestGeluApproximate(t *testing.T) {
	x := backendtest.Array{Shape: backend.Shape{6}, Data: []float64{-3.5, -1.2, -0.1, 0.4, 1.7, 4.2}}
	want := backendtest.Array{Shape: x.Shape, Data: make([]float64, 6)}
	for i, v := range x.Data {
		want.Data[i] = v / 2 * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(v+0.044715*v*v*v)))
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		got, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
			return []backend.Value{activations.GeluApproximate(b, v[0])}, nil
		}, []backendtest.Array{x})
		if err != nil {
			t.Fatal(err)
		}
		backendtest.AssertClose(t, "gelu approximate", got[0], want, 1e-12)
	})
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// glu and sparsemax act along the last axis: glu gates its first half by
// the sigmoid of its second, sparsemax projects onto the simplex (Keras's
// values, in float64).
func TestAxisActivations(t *testing.T) {
	x := backendtest.Array{Shape: backend.Shape{2, 4}, Data: []float64{0.5, -1, 2, -0.25, 3, 1, 0.2, -0.4}}
	cases := map[string][]float64{
		"glu": {0.5 * sigmoid(2), -1 * sigmoid(-0.25), 3 * sigmoid(0.2), 1 * sigmoid(-0.4)},
		// sparsemax of (0.5, -1, 2, -0.25) is (0, 0, 1, 0); of (3, 1, 0.2,
		// -0.4), (1, 0, 0, 0): one entry leads the others by more than 1.
		"sparsemax": {0, 0, 1, 0, 1, 0, 0, 0},
	}
	close := backendtest.Array{Shape: backend.Shape{1, 3}, Data: []float64{0.1, 0.3, 0.2}}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for name, want := range cases {
			f, err := activations.Get(name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
				return []backend.Value{f(b, v[0])}, nil
			}, []backendtest.Array{x})
			if err != nil {
				t.Fatal(err)
			}
			shape := backend.Shape{2, len(want) / 2}
			backendtest.AssertClose(t, name, got[0], backendtest.Array{Shape: shape, Data: want}, 1e-12)
		}
		// Close values share the simplex: (0.1, 0.3, 0.2) - tau, tau = -0.2/3.
		sparsemax, _ := activations.Get("sparsemax")
		got, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
			return []backend.Value{sparsemax(b, v[0])}, nil
		}, []backendtest.Array{close})
		if err != nil {
			t.Fatal(err)
		}
		tau := (0.6 - 1) / 3
		backendtest.AssertClose(t, "sparsemax", got[0], backendtest.Array{Shape: close.Shape, Data: []float64{0.1 - tau, 0.3 - tau, 0.2 - tau}}, 1e-12)
		glu, _ := activations.Get("glu")
		wts := backendtest.Random(5, -1, 1, 2, 2)
		backendtest.CheckGradient(t, be, func(b backend.Builder, v []backend.Value) backend.Value {
			return b.Sum(b.Mul(glu(b, v[0]), b.Constant(wts.Data, wts.Shape)))
		}, []backendtest.Array{x}, []int{0}, 1e-5)
	})
}

func TestUnknownActivations(t *testing.T) {
	if _, err := activations.Get("threshold"); err == nil || !strings.Contains(err.Error(), "activations.Threshold") {
		t.Errorf("threshold by name: %v", err)
	}
	if _, err := activations.Get("relu7"); err == nil || !strings.Contains(err.Error(), "leaky_relu") {
		t.Errorf("an unknown name: %v", err)
	}
	if _, err := activations.Get(""); err != nil {
		t.Errorf("the empty name is linear: %v", err)
	}
}

// Threshold keeps x above the threshold and gives the default elsewhere
// (the threshold itself included), on every engine.
func TestThreshold(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		x := backendtest.Array{Shape: backend.Shape{5}, Data: []float64{-1, 0.5, 0.50001, 2, 0}}
		got, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
			return []backend.Value{activations.Threshold(b, v[0], 0.5, -3)}, nil
		}, []backendtest.Array{x})
		if err != nil {
			t.Fatal(err)
		}
		want := []float64{-3, -3, 0.50001, 2, -3}
		for i, w := range want {
			if got[0].Data[i] != w {
				t.Errorf("Threshold(%v, 0.5, -3) = %v, want %v", x.Data[i], got[0].Data[i], w)
			}
		}
	})
}

// glu halves the last axis of the layer it ends, as Keras computes its
// output; an odd length is refused with the fix.
func TestOutputShape(t *testing.T) {
	if got, err := activations.OutputShape("glu", backend.Shape{2, 6}); err != nil || !got.Equal(backend.Shape{2, 3}) {
		t.Errorf("glu of (2, 6): %v, %v; want (2, 3)", got, err)
	}
	if _, err := activations.OutputShape("glu", backend.Shape{2, 5}); err == nil || !strings.Contains(err.Error(), "even length") {
		t.Errorf("glu of (2, 5): %v, want an error asking for an even length", err)
	}
	if got, err := activations.OutputShape("relu", backend.Shape{2, 5}); err != nil || !got.Equal(backend.Shape{2, 5}) {
		t.Errorf("relu of (2, 5): %v, %v", got, err)
	}
}
