package losses_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/losses"
)

// Every loss, read from its Keras form (a name or a class object with its
// settings), matches the value PyTorch computes (testdata/golden.json,
// written by scripts/golden-losses.py) in float64 (1e-9) and float32
// (1e-5), its gradient with respect to the predictions passes the
// finite-difference check, and it survives Serialize and Deserialize; on
// every engine.
func TestLossesMatchPyTorch(t *testing.T) {
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
		}
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 25 {
		t.Fatalf("only %d golden cases: regenerate testdata/golden.json with scripts/golden-losses.py", len(file.Cases))
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
					backendtest.AssertClose(t, c.Name, got[0], want, dt.tol)
				}
				backendtest.CheckGradient(t, be, fn, in, []int{1}, 1e-5)
			})
		}
	})
}
