package losses_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/losses"
)

// Every loss, read from its Keras form (a name or a class object with its
// settings), matches the value Keras 3 itself computes (1e-6: Keras's
// ops.mean rounds through float32 even for float64 inputs) and the one
// PyTorch computes, in float64 (1e-9) and float32 (1e-5)
// (testdata/golden.json, written by scripts/golden-losses.py, Keras's
// values added by scripts/golden-keras.py); its gradient with respect to
// the predictions passes the finite-difference check, and it survives
// Serialize and Deserialize; on every engine.
func TestLossesMatchKerasAndPyTorch(t *testing.T) {
	data, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Name  string            `json:"name"`
			Loss  any               `json:"loss"`
			YTrue backendtest.Array `json:"y_true"`
			YPred backendtest.Array `json:"y_pred"`
			Value float64           `json:"value"`
			Keras struct {
				Value *float64 `json:"value"`
			} `json:"keras"`
		}
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 25 {
		t.Fatalf("only %d golden cases: regenerate testdata/golden.json with scripts/golden-losses.py", len(file.Cases))
	}
	for _, c := range file.Cases {
		if c.Keras.Value == nil {
			t.Fatalf("%s has no Keras value: run scripts/golden-keras.py losses (with build/keras-env's python)", c.Name)
		}
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range file.Cases {
			t.Run(c.Name, func(t *testing.T) {
				l, err := losses.Deserialize(c.Loss)
				if err != nil {
					t.Fatal(err)
				}
				saved, err := losses.Serialize(l)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := json.Marshal(saved)
				var decoded any
				json.Unmarshal(raw, &decoded)
				if l, err = losses.Deserialize(decoded); err != nil {
					t.Fatalf("reading back %s: %v", raw, err)
				}
				in := []backendtest.Array{c.YTrue, c.YPred}
				fn := func(b backend.Builder, v []backend.Value) backend.Value { return l.Compute(b, v[0], v[1]) }
				want := backendtest.Array{Shape: backend.Shape{}, Data: []float64{c.Value}}
				for _, dt := range []struct {
					dtype backend.DType
					tol   float64
				}{{backend.Float64, 1e-9}, {backend.Float32, 1e-5}} {
					got, err := backendtest.Eval(be, dt.dtype, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
						return []backend.Value{fn(b, v)}, nil
					}, in)
					if err != nil {
						t.Fatal(err)
					}
					backendtest.AssertClose(t, c.Name+" vs PyTorch", got[0], want, dt.tol)
					keras := backendtest.Array{Shape: backend.Shape{}, Data: []float64{*c.Keras.Value}}
					backendtest.AssertClose(t, c.Name+" vs Keras", got[0], keras, max(dt.tol, 1e-6))
				}
				backendtest.CheckGradient(t, be, fn, in, []int{1}, 1e-5)
			})
		}
	})
}

// The Keras values in testdata/golden.json are what Keras 3 computes now
// (scripts/golden-keras.py --check recomputes every case); skipped
// without `make keras-env`.
func TestGoldenKerasValuesAreCurrent(t *testing.T) {
	python := kerasref.Python(t)
	t.Logf("%s", kerasref.Run(t, python, kerasref.Script(t, "golden-keras.py"), "--check", "losses"))
}

// Every loss class and loss function keras.losses exports, as the
// installed Keras lists them, is one kerasgo knows by that name (22 of 22
// classes for Keras 3.15.1); skipped without `make keras-env`.
func TestEveryKerasLossIsKnown(t *testing.T) {
	python := kerasref.Python(t)
	out := kerasref.Run(t, python, "-c", `import inspect, json, keras
names = {"classes": sorted(n for n, c in vars(keras.losses).items() if inspect.isclass(c) and issubclass(c, keras.losses.Loss) and c is not keras.losses.Loss),
         "functions": sorted(n for n, c in vars(keras.losses).items() if inspect.isfunction(c) and n not in ("get", "serialize", "deserialize"))}
print(json.dumps(names))`)
	var names struct{ Classes, Functions []string }
	if err := json.Unmarshal(lastLine(out), &names); err != nil {
		t.Fatalf("reading Keras's loss names: %v\n%s", err, out)
	}
	if len(names.Classes) < 22 {
		t.Fatalf("Keras lists only %d loss classes: %v", len(names.Classes), names.Classes)
	}
	known := 0
	for _, group := range [][]string{names.Classes, names.Functions} {
		for _, n := range group {
			if _, err := losses.Get(n); err != nil {
				t.Errorf("keras.losses.%s: %v", n, err)
				continue
			}
			known++
		}
	}
	t.Logf("kerasgo knows %d of Keras's %d loss classes and functions", known, len(names.Classes)+len(names.Functions))
}

// lastLine is the last non-empty line of a script's output (Keras may
// print warnings before it).
func lastLine(out []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	return lines[len(lines)-1]
}
