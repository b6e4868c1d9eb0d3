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

func TestUnknownActivations(t *testing.T) {
	if _, err := activations.Get("relu7"); err == nil || !strings.Contains(err.Error(), "leaky_relu") {
		t.Errorf("an unknown name: %v", err)
	}
	if _, err := activations.Get(""); err != nil {
		t.Errorf("the empty name is linear: %v", err)
	}
}
