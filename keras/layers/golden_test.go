package layers_test

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// goldenCase is one layer computation from testdata/golden.json:
// scripts/golden-layers.py writes the case with PyTorch's values, then
// scripts/golden-keras.py adds Keras's own (Keras).
type goldenCase struct {
	Name           string               `json:"name"`
	Class          string               `json:"class"`
	Config         serialization.Config `json:"config"`
	Training       bool                 `json:"training"`
	Inputs         []backendtest.Array  `json:"inputs"`
	Weights        []backendtest.Array  `json:"weights"`
	Output         backendtest.Array    `json:"output"`
	Steps          []backendtest.Array  `json:"steps"` // BatchNormalization: batches of successive training steps
	MovingMean     *backendtest.Array   `json:"moving_mean"`
	MovingVariance *backendtest.Array   `json:"moving_variance"`
	// NoGradInputs are inputs holding integers (token ids): no gradient.
	NoGradInputs []int `json:"no_grad_inputs"`
	// Call holds Keras call arguments kerasgo keeps as settings
	// (layers.CallKwargs).
	Call map[string]any `json:"call"`
	// Masks are the inputs' masks (batch, steps), null where an input has
	// none; they follow the weights as Func inputs.
	Masks []*backendtest.Array `json:"masks"`
	// States are a recurrent layer's final states with return_state,
	// its outputs after the first.
	States []backendtest.Array `json:"states"`
	// Keras holds what Keras 3 itself computes for the case.
	Keras kerasResult `json:"keras"`
}

// kerasResult is Keras's output for a golden case, computed in DType
// (float64, or float32 where Keras cannot run the layer in float64), or
// the Error Keras raised on the case.
type kerasResult struct {
	DType          string              `json:"dtype"`
	Output         *backendtest.Array  `json:"output"`
	States         []backendtest.Array `json:"states"`
	MovingMean     *backendtest.Array  `json:"moving_mean"`
	MovingVariance *backendtest.Array  `json:"moving_variance"`
	Error          string              `json:"error"`
}

// tolerance is how far kerasgo may be from Keras's result, relative to
// max(1, |value|): Keras computes some reductions (ops.mean) in float32
// even for float64 inputs, so its float64 results carry float32 rounding
// (up to 4e-7 from PyTorch's on these cases).
func (k kerasResult) tolerance() float64 {
	if k.DType == "float64" {
		return 1e-6
	}
	return 1e-5
}

// kerasComputed is the number of golden cases Keras computes: all but
// AveragePooling1D without pool_size (Keras requires one; kerasgo takes
// 2, as Keras 2 did) and MultiHeadAttention with value_dim != key_dim
// (Keras 3.15 on JAX fails reshaping the attention output).
const kerasComputed = 252

func loadGolden(t *testing.T) []goldenCase {
	t.Helper()
	data, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []goldenCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	return file.Cases
}

// build makes the case's layer from its Keras config and applies it to
// inputs of the case's shapes.
func (c goldenCase) build(t *testing.T) layers.Layer {
	t.Helper()
	l, err := layers.FromConfig(c.Class, c.Config)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range c.Call {
		if ck, ok := l.(layers.CallKwargs); !ok || !ck.SetCallKwarg(k, v) {
			t.Fatalf("%s does not take the call argument %s=%v", c.Class, k, v)
		}
	}
	ins := make([]*layers.KerasTensor, len(c.Inputs))
	for i, a := range c.Inputs {
		ins[i] = layers.Input(a.Shape[1:]...)
	}
	out := layers.Apply(l, ins...)
	if out.Err() != nil {
		t.Fatal(out.Err())
	}
	if want := append(backend.Shape{-1}, c.Output.Shape[1:]...); !out.Shape().Equal(want) {
		t.Fatalf("output shape %v, PyTorch's is %v", out.Shape(), want)
	}
	if n := len(layers.WeightsOf(l)); n != len(c.Weights) {
		t.Fatalf("the layer has %d weights, the golden case %d", n, len(c.Weights))
	}
	return l
}

// call returns a Func computing the layer from the inputs, then its
// weights, as Func inputs; with updates, the assigned weights' new values
// follow the output.
func (c goldenCase) call(l layers.Layer, updates bool) func(b backend.Builder, v []backend.Value) []backend.Value {
	return func(b backend.Builder, v []backend.Value) []backend.Value {
		ws := layers.WeightsOf(l)
		values := map[*layers.Weight]backend.Value{}
		for i, w := range ws {
			values[w] = v[len(c.Inputs)+i]
		}
		ctx := layers.NewContext(b, c.Training, values)
		if len(c.Masks) > 0 {
			masks := make([]backend.Value, len(c.Inputs))
			next := len(c.Inputs) + len(ws)
			for i, m := range c.Masks {
				if m != nil {
					masks[i] = v[next]
					next++
				}
			}
			ctx = ctx.WithMasks(masks)
		}
		var out []backend.Value
		if len(c.States) > 0 {
			out = l.(layers.MultiOutput).CallOutputs(ctx, v[:len(c.Inputs)])
		} else {
			out = []backend.Value{l.Call(ctx, v[:len(c.Inputs)])}
		}
		if updates {
			for _, w := range ws {
				if nv, ok := ctx.Updates()[w]; ok {
					out = append(out, nv)
				}
			}
		}
		return out
	}
}

// Every layer's forward output equals Keras's own (within 1e-6, or 1e-5
// where Keras computed in float32) and PyTorch's (float64 1e-9, float32
// 1e-5) on the golden cases, on every engine; the first case of each
// layer class also passes the finite-difference gradient check with
// respect to its inputs and trainable weights; BatchNormalization's moving
// statistics after three training steps equal both references.
func TestLayersMatchKerasAndPyTorch(t *testing.T) {
	cases := loadGolden(t)
	if len(cases) < 40 {
		t.Fatalf("only %d golden cases: regenerate testdata/golden.json with scripts/golden-layers.py", len(cases))
	}
	computed := 0
	for _, c := range cases {
		if c.Keras.Output != nil {
			computed++
		} else if c.Keras.Error == "" {
			t.Fatalf("%s has no Keras result: run scripts/golden-keras.py layers (with build/keras-env's python)", c.Name)
		}
	}
	if computed < kerasComputed {
		t.Fatalf("Keras computed %d golden cases, want at least %d", computed, kerasComputed)
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		gradChecked := map[string]bool{}
		for _, c := range cases {
			t.Run(c.Name, func(t *testing.T) {
				l := c.build(t)
				fn := c.call(l, false)
				in := append(append([]backendtest.Array{}, c.Inputs...), c.Weights...)
				for _, m := range c.Masks {
					if m != nil {
						in = append(in, *m)
					}
				}
				for _, dt := range []struct {
					dtype backend.DType
					tol   float64
				}{{backend.Float64, 1e-9}, {backend.Float32, 1e-5}} {
					got, err := backendtest.Eval(be, dt.dtype, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
						return fn(b, v)[:1+len(c.States)], nil
					}, in)
					if err != nil {
						t.Fatal(err)
					}
					backendtest.AssertClose(t, c.Name+" "+dt.dtype.String()+" vs PyTorch", got[0], c.Output, dt.tol)
					for i, st := range c.States {
						backendtest.AssertClose(t, fmt.Sprintf("%s %v state %d vs PyTorch", c.Name, dt.dtype, i), got[1+i], st, dt.tol)
					}
					if k := c.Keras; k.Output != nil {
						tol := max(k.tolerance(), dt.tol)
						backendtest.AssertClose(t, c.Name+" "+dt.dtype.String()+" vs Keras", got[0], *k.Output, tol)
						for i, st := range k.States {
							backendtest.AssertClose(t, fmt.Sprintf("%s %v state %d vs Keras", c.Name, dt.dtype, i), got[1+i], st, tol)
						}
					}
				}
				// The first case of each class, and its first with masks.
				if kind := fmt.Sprint(c.Class, len(c.Masks) > 0); !gradChecked[kind] {
					gradChecked[kind] = true
					w := backendtest.Random(5, -1, 1, c.Output.Shape...)
					var wrt []int // the inputs and the trainable weights
					for i := range c.Inputs {
						if !slices.Contains(c.NoGradInputs, i) {
							wrt = append(wrt, i)
						}
					}
					for i, wt := range layers.WeightsOf(l) {
						if wt.Trainable {
							wrt = append(wrt, len(c.Inputs)+i)
						}
					}
					backendtest.CheckGradient(t, be, func(b backend.Builder, v []backend.Value) backend.Value {
						return b.Sum(b.Mul(fn(b, v)[0], b.Constant(w.Data, w.Shape)))
					}, in, wrt, 1e-5)
				}
				if c.MovingMean != nil {
					checkMovingStatistics(t, be, c, l)
				}
			})
		}
	})
}

// checkMovingStatistics runs the case's training steps, feeding each
// step's moving mean and variance to the next, and compares them with the
// reference after the last.
func checkMovingStatistics(t *testing.T, be backend.Backend, c goldenCase, l layers.Layer) {
	t.Helper()
	fn := c.call(l, true)
	weights := append([]backendtest.Array{}, c.Weights...)
	for _, batch := range c.Steps {
		out, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
			return fn(b, v), nil
		}, append([]backendtest.Array{batch}, weights...))
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 3 {
			t.Fatalf("a training step assigned %d weights, want the moving mean and variance", len(out)-1)
		}
		weights[2], weights[3] = out[1], out[2]
	}
	backendtest.AssertClose(t, "moving mean after 3 steps vs PyTorch", weights[2], *c.MovingMean, 1e-9)
	backendtest.AssertClose(t, "moving variance after 3 steps vs PyTorch", weights[3], *c.MovingVariance, 1e-9)
	if k := c.Keras; k.MovingMean != nil {
		backendtest.AssertClose(t, "moving mean after 3 steps vs Keras", weights[2], *k.MovingMean, k.tolerance())
		backendtest.AssertClose(t, "moving variance after 3 steps vs Keras", weights[3], *k.MovingVariance, k.tolerance())
	} else {
		t.Errorf("Keras computed no moving statistics for %s: run scripts/golden-keras.py layers", c.Name)
	}
}

// The Keras values in testdata/golden.json are what Keras 3 computes now
// (scripts/golden-keras.py --check recomputes every case), so the file
// cannot go stale; skipped without `make keras-env`.
func TestGoldenKerasValuesAreCurrent(t *testing.T) {
	python := kerasref.Python(t)
	t.Logf("%s", kerasref.Run(t, python, kerasref.Script(t, "golden-keras.py"), "--check", "layers"))
}
