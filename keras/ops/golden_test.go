package ops_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
)

type goldenCase struct {
	Name    string
	Inputs  []backendtest.Array
	Outputs []backendtest.Array
	Grads   []*backendtest.Array // nil for int inputs
}

// jsonArray is an array as the golden file stores it: JSON has no NaN or
// infinities, so those are the strings "NaN", "Infinity", "-Infinity".
type jsonArray struct {
	Shape backend.Shape `json:"shape"`
	Data  []jsonFloat   `json:"data"`
	Int   bool          `json:"int"`
}

type jsonFloat float64

func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"NaN"`:
		*f = jsonFloat(math.NaN())
	case `"Infinity"`:
		*f = jsonFloat(math.Inf(1))
	case `"-Infinity"`:
		*f = jsonFloat(math.Inf(-1))
	default:
		var v float64
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*f = jsonFloat(v)
	}
	return nil
}

func (a jsonArray) array() backendtest.Array {
	out := backendtest.Array{Shape: a.Shape, Data: make([]float64, len(a.Data)), Int: a.Int}
	if out.Shape == nil {
		out.Shape = backend.Shape{}
	}
	for i, v := range a.Data {
		out.Data[i] = float64(v)
	}
	return out
}

func arrays(as []jsonArray) []backendtest.Array {
	out := make([]backendtest.Array, len(as))
	for i, a := range as {
		out[i] = a.array()
	}
	return out
}

func readGolden(t *testing.T) []goldenCase {
	t.Helper()
	data, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Name    string       `json:"name"`
			Inputs  []jsonArray  `json:"inputs"`
			Outputs []jsonArray  `json:"outputs"`
			Grads   []*jsonArray `json:"grads"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	out := make([]goldenCase, len(file.Cases))
	for i, c := range file.Cases {
		out[i] = goldenCase{Name: c.Name, Inputs: arrays(c.Inputs), Outputs: arrays(c.Outputs)}
		if c.Grads != nil {
			out[i].Grads = make([]*backendtest.Array, len(c.Grads))
			for k, g := range c.Grads {
				if g != nil {
					a := g.array()
					out[i].Grads[k] = &a
				}
			}
		}
	}
	return out
}

// weights are the fixed w of the gradient check, sum(output·w):
// w[i] = cos(1.3·i), as scripts/golden-ops.py uses.
func weights(s backend.Shape) []float64 {
	w := make([]float64, s.Size())
	for i := range w {
		w[i] = math.Cos(1.3 * float64(i))
	}
	return w
}

// Every case of testdata/golden.json (written by scripts/golden-ops.py
// from Keras 3 on JAX in float64) is built with kerasgo's ops and matches
// Keras's outputs on every engine, within 1e-6 in float64 and 1e-5 in
// float32 (relative to max(1, |want|)); for differentiable cases, the
// engine's gradient of sum(output·w) matches JAX's (1e-6) and central
// finite differences (1e-5).
func TestOpsMatchKeras(t *testing.T) {
	cases := readGolden(t)
	table := goldenCases()
	var missingGo []string
	for _, c := range cases {
		if table[c.Name] == nil {
			missingGo = append(missingGo, c.Name)
		}
	}
	if len(missingGo) > 0 {
		t.Fatalf("golden cases without a Go call in goldenCases: %v", missingGo)
	}
	if len(table) != len(cases) {
		t.Fatalf("goldenCases has %d entries but testdata/golden.json %d cases: add the case to scripts/golden-ops.py and rerun it", len(table), len(cases))
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range cases {
			t.Run(c.Name, func(t *testing.T) {
				f := table[c.Name]
				inputs := c.Inputs
				if len(inputs) == 0 {
					// a Func's dtype comes from its inputs: give it one,
					// unused
					inputs = []backendtest.Array{{Shape: backend.Shape{}, Data: []float64{0}}}
				}
				fn := func(b backend.Builder, in []backend.Value) ([]backend.Value, error) {
					return f(b, in), b.Err()
				}
				tol64 := 1e-6
				if t, ok := float64Tolerance[c.Name]; ok {
					tol64 = t
				}
				for _, dt := range []struct {
					dtype backend.DType
					tol   float64
				}{{backend.Float64, tol64}, {backend.Float32, 1e-5}} {
					got, err := backendtest.Eval(be, dt.dtype, fn, inputs)
					if err != nil {
						t.Fatalf("%v: %v", dt.dtype, err)
					}
					if len(got) != len(c.Outputs) {
						t.Fatalf("%v: %d outputs, Keras has %d", dt.dtype, len(got), len(c.Outputs))
					}
					for i := range got {
						want := c.Outputs[i]
						if dt.dtype == backend.Float32 {
							want = roundTo32(want)
						}
						backendtest.AssertClose(t, fmt.Sprintf("%v output %d", dt.dtype, i), got[i], want, dt.tol)
					}
				}
				if c.Grads != nil {
					checkGradients(t, be, c, f)
				}
			})
		}
	})
}

// roundTo32 turns values beyond float32's range into the infinities a
// float32 computation gives.
func roundTo32(a backendtest.Array) backendtest.Array {
	out := backendtest.Array{Shape: a.Shape, Data: make([]float64, len(a.Data))}
	for i, v := range a.Data {
		out.Data[i] = float64(float32(v))
	}
	return out
}

func checkGradients(t *testing.T, be backend.Backend, c goldenCase, f opFunc) {
	t.Helper()
	loss := func(b backend.Builder, in []backend.Value) backend.Value {
		var total backend.Value
		for _, o := range f(b, in) {
			s := o.Shape()
			var w backend.Value
			if len(s) == 0 {
				w = b.Scalar(weights(s)[0])
			} else {
				w = b.Constant(weights(s), s)
			}
			term := b.Sum(b.Mul(o, w))
			if len(s) == 0 {
				term = b.Mul(o, w)
			}
			if total == nil {
				total = term
			} else {
				total = b.Add(total, term)
			}
		}
		return total
	}
	var wrt []int
	for i, g := range c.Grads {
		if g != nil {
			wrt = append(wrt, i)
		}
	}
	got, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		ws := make([]backend.Value, len(wrt))
		for i, k := range wrt {
			ws[i] = v[k]
		}
		return b.Grad(loss(b, v), ws), b.Err()
	}, c.Inputs)
	if err != nil {
		t.Fatalf("gradient: %v", err)
	}
	for i, k := range wrt {
		backendtest.AssertClose(t, fmt.Sprintf("gradient of input %d vs JAX", k), got[i], *c.Grads[k], 1e-6)
	}
	if noFiniteDifferences[c.Name] {
		return
	}
	backendtest.CheckGradient(t, be, loss, c.Inputs, wrt, 1e-5)
}

// float64Tolerance loosens the float64 comparison for cases where Keras
// itself is less exact than float64: Keras 3.15.1's ssim on JAX comes out
// 1e-6 from the float64 value (its convolutions lose precision; a NumPy
// float64 computation of the same formula agrees with kerasgo to 1e-8).
var float64Tolerance = map[string]float64{"image.ssim": 1e-5}

// noFiniteDifferences are the cases whose gradient is by definition not
// the function's derivative: stop_gradient's is checked against JAX's
// only.
var noFiniteDifferences = map[string]bool{
	"stop_gradient": true,
	// custom gradients that are, by design, not the derivative
	"custom_gradient/clipped":    true,
	"custom_gradient/two_inputs": true,
	// nearest-neighbour sampling's gradient in the transform is zero
	// except where a pixel's coordinate crosses a half, where it jumps:
	// differences across a jump are not a derivative.
	"image.affine_transform/nearest_wrap": true,
}

// The stored goldens are what the installed Keras computes
// (scripts/golden-ops.py --check recomputes every case, outputs and
// gradients), so the file cannot go stale; skipped without
// `make keras-env`.
func TestGoldenOpsAreCurrent(t *testing.T) {
	t.Parallel()
	python := kerasref.Python(t)
	t.Logf("%s", kerasref.Run(t, python, kerasref.Script(t, "golden-ops.py"), "--check"))
}

// opNames are the keras.ops names that have golden cases: the op part of
// each case name.
func opNames(cases []goldenCase) []string {
	seen := map[string]bool{}
	for _, c := range cases {
		seen[strings.SplitN(c.Name, "/", 2)[0]] = true
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
