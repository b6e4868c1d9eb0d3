package metrics_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/metrics"
)

// rows returns samples [from, to) of a.
func rows(a backendtest.Array, from, to int) backendtest.Array {
	n := a.Shape[1:].Size()
	return backendtest.Array{Shape: append(backend.Shape{to - from}, a.Shape[1:]...), Data: a.Data[from*n : to*n]}
}

// Every metric, read from its Keras form, gives Keras's own value and
// PyTorch's for an epoch (testdata/golden.json, written by
// scripts/golden-metrics.py, Keras's values added by
// scripts/golden-keras.py, which runs the Keras metric's update_state on
// the same two batches) when run batch by batch as training runs it (two
// batches of 7 and 5 samples): a Sample metric's per-sample values
// averaged, an Accumulator's totals summed, then its Result; on every
// engine, and after Serialize and Deserialize.
func TestMetricsMatchKerasAndPyTorch(t *testing.T) {
	data, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Cases []struct {
			Name   string            `json:"name"`
			Metric any               `json:"metric"`
			YTrue  backendtest.Array `json:"y_true"`
			YPred  backendtest.Array `json:"y_pred"`
			Value  float64           `json:"value"`
			Keras  struct {
				Value *float64 `json:"value"`
			} `json:"keras"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Cases) < 19 {
		t.Fatalf("only %d golden cases: regenerate testdata/golden.json with scripts/golden-metrics.py", len(file.Cases))
	}
	for _, c := range file.Cases {
		if c.Keras.Value == nil {
			t.Fatalf("%s has no Keras value: run scripts/golden-keras.py metrics (with build/keras-env's python)", c.Name)
		}
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range file.Cases {
			t.Run(c.Name, func(t *testing.T) {
				spec, err := metrics.Deserialize(c.Metric)
				if err != nil {
					t.Fatal(err)
				}
				yShape := append(backend.Shape{-1}, c.YTrue.Shape[1:]...)
				pShape := append(backend.Shape{-1}, c.YPred.Shape[1:]...)
				m, err := metrics.Resolve(spec, yShape, pShape)
				if err != nil {
					t.Fatal(err)
				}
				if err := metrics.Check(m, pShape); err != nil {
					t.Fatal(err)
				}
				saved, err := metrics.Serialize(m)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := json.Marshal(saved)
				var decoded any
				json.Unmarshal(raw, &decoded)
				if _, err := metrics.Deserialize(decoded); err != nil {
					t.Fatalf("reading back %s: %v", raw, err)
				}
				var totals []float64
				sum, count := 0.0, 0
				for _, span := range [][2]int{{0, 7}, {7, 12}} {
					in := []backendtest.Array{rows(c.YTrue, span[0], span[1]), rows(c.YPred, span[0], span[1])}
					out, err := backendtest.Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
						switch mt := m.(type) {
						case metrics.Accumulator:
							return []backend.Value{mt.Totals(b, v[0], v[1])}, nil
						case metrics.Sample:
							return []backend.Value{b.Sum(mt.Compute(b, v[0], v[1]))}, nil
						}
						t.Fatalf("%T is no metric", m)
						return nil, nil
					}, in)
					if err != nil {
						t.Fatal(err)
					}
					if totals == nil {
						totals = make([]float64, len(out[0].Data))
					}
					for i, v := range out[0].Data {
						totals[i] += v
					}
					sum += out[0].Data[0]
					count += span[1] - span[0]
				}
				got := sum / float64(count)
				if a, ok := m.(metrics.Accumulator); ok {
					got = a.Result(totals)
				}
				gotArray := backendtest.Array{Shape: backend.Shape{}, Data: []float64{got}}
				backendtest.AssertClose(t, c.Name+" vs PyTorch", gotArray, backendtest.Array{Shape: backend.Shape{}, Data: []float64{c.Value}}, 1e-5)
				backendtest.AssertClose(t, c.Name+" vs Keras", gotArray, backendtest.Array{Shape: backend.Shape{}, Data: []float64{*c.Keras.Value}}, 1e-5)
			})
		}
	})
}

// The Keras values in testdata/golden.json are what Keras 3 computes now
// (scripts/golden-keras.py --check recomputes every case); skipped
// without `make keras-env`.
func TestGoldenKerasValuesAreCurrent(t *testing.T) {
	python := kerasref.Python(t)
	t.Logf("%s", kerasref.Run(t, python, kerasref.Script(t, "golden-keras.py"), "--check", "metrics"))
}

// Every metric class keras.metrics exports, as the installed Keras lists
// them, is one kerasgo reads: Keras's own serialization of an instance
// (with the arguments those that need them take) deserializes, and the
// two trackers, Mean and Sum, are known by name (44 of 44 for Keras
// 3.15.1); skipped without `make keras-env`.
func TestEveryKerasMetricIsKnown(t *testing.T) {
	python := kerasref.Python(t)
	out := kerasref.Run(t, python, "-c", `import inspect, json, keras
M = keras.metrics
args = {"IoU": dict(num_classes=3, target_class_ids=[0, 2]), "MeanIoU": dict(num_classes=3), "OneHotIoU": dict(num_classes=3, target_class_ids=[1]),
        "OneHotMeanIoU": dict(num_classes=3), "PrecisionAtRecall": dict(recall=0.5), "RecallAtPrecision": dict(precision=0.5),
        "SensitivityAtSpecificity": dict(specificity=0.5), "SpecificityAtSensitivity": dict(sensitivity=0.5)}
print(json.dumps([{"class": n, "config": keras.saving.serialize_keras_object(c(**args.get(n, {})))}
                  for n, c in sorted(vars(M).items())
                  if inspect.isclass(c) and issubclass(c, M.Metric) and n not in ("Metric", "MeanMetricWrapper")]))`)
	var classes []struct {
		Class  string
		Config map[string]any
	}
	if err := json.Unmarshal(lastLine(out), &classes); err != nil {
		t.Fatalf("reading Keras's metric classes: %v\n%s", err, out)
	}
	if len(classes) < 44 {
		t.Fatalf("Keras lists only %d metric classes", len(classes))
	}
	known := 0
	for _, c := range classes {
		var err error
		if c.Class == "Mean" || c.Class == "Sum" {
			_, err = metrics.Get(c.Class, backend.Shape{-1, 1}, backend.Shape{-1, 1})
		} else {
			_, err = metrics.Deserialize(c.Config)
		}
		if err != nil {
			t.Errorf("keras.metrics.%s: %v", c.Class, err)
			continue
		}
		known++
	}
	t.Logf("kerasgo knows %d of Keras's %d metric classes", known, len(classes))
}

// lastLine is the last non-empty line of a script's output (Keras may
// print warnings before it).
func lastLine(out []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	return lines[len(lines)-1]
}
