package main

import (
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// clientModels saves a Sequential model, a functional model with two
// named inputs and a text model with an int input, and returns what
// Predict answers for the samples the clients send.
func clientModels(t *testing.T, dir string) map[string][]float32 {
	t.Helper()
	ctx := context.Background()
	compile := func(m *keras.Model, path string) *keras.Model {
		keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 7}))
		keras.MustOK(m.Save(filepath.Join(dir, path)))
		return m
	}
	seq := compile(keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, &layers.Dense{Units: 4, Activation: "relu"}, &layers.Dense{Units: 2})), "seq.keras")
	title, tags := layers.NamedInput("title", 4), layers.NamedInput("tags", 2)
	merged := layers.Apply(&layers.Concatenate{}, layers.Apply(&layers.Dense{Units: 3, Activation: "tanh"}, title), tags)
	two := compile(keras.Must(keras.NewFunctional([]*layers.KerasTensor{title, tags}, []*layers.KerasTensor{layers.Apply(&layers.Dense{Units: 1}, merged)})), "two.keras")
	ids := layers.IntInput(5)
	text := compile(keras.Must(keras.NewModel(ids, layers.Apply(&layers.Dense{Units: 2},
		layers.Apply(&layers.GlobalAveragePooling1D{}, layers.Apply(&layers.Embedding{InputDim: 20, OutputDim: 4}, ids))))), "text.keras")

	want := map[string][]float32{}
	want["seq"] = keras.Must(seq.Predict(ctx, keras.Must(keras.NewArray([]float32{1, 2, 5, -1, 0.5, 0}, 2, 3)), keras.PredictOptions{})).Data
	want["two"] = keras.Must(two.Predict(ctx, keras.NamedArrays{
		"title": keras.Must(keras.NewArray([]float32{1, 0, 0, 1, 0, 1, 1, 0}, 2, 4)),
		"tags":  keras.Must(keras.NewArray([]float32{1, 0, 0.5, 0.5}, 2, 2)),
	}, keras.PredictOptions{})).Data
	want["text"] = keras.Must(text.Predict(ctx, keras.Must(keras.NewIntArray([]int32{1, 2, 3, 0, 0, 19, 18, 17, 16, 15}, 2, 5)), keras.PredictOptions{})).Data
	return want
}

// flatJSON returns the numbers of a JSON document's nested lists, in order.
func flatJSON(v any) []float64 {
	switch x := v.(type) {
	case float64:
		return []float64{x}
	case []any:
		var out []float64
		for _, e := range x {
			out = append(out, flatJSON(e)...)
		}
		return out
	case map[string]any:
		for _, k := range []string{"predictions", "outputs"} {
			if e, ok := x[k]; ok {
				return flatJSON(e)
			}
		}
	}
	return nil
}

func sameNumbers(got []float64, want []float32) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i]-float64(want[i])) > 1e-6 {
			return false
		}
	}
	return true
}

// Clients written for TensorFlow Serving (curl as its REST API guide
// shows it, and a Python requests script) get from kerasgo serve what
// model.Predict returns, for a Sequential model, a functional model with
// two named inputs, and a text model with int inputs.
func TestServeAnswersTensorFlowServingClients(t *testing.T) {
	dir := t.TempDir()
	want := clientModels(t, dir)
	serve := startServe(t, "-reload-interval", "-1s",
		filepath.Join(dir, "seq.keras"), filepath.Join(dir, "two.keras"), filepath.Join(dir, "text.keras"))
	defer func() { serve.cmd.Process.Signal(syscall.SIGTERM); serve.wait() }()
	base, log := "http://"+serve.addr, serve.log

	if _, err := exec.LookPath("curl"); err != nil {
		t.Log("no curl: the curl client is skipped (sudo apt-get install curl)")
	} else {
		for _, c := range []struct{ model, body string }{
			{"seq", `{"instances": [[1.0, 2.0, 5.0], [-1, 0.5, 0]]}`},
			{"seq", `{"signature_name": "serving_default", "inputs": [[1.0, 2.0, 5.0], [-1, 0.5, 0]]}`},
			{"two", `{"instances": [{"title": [1, 0, 0, 1], "tags": [1, 0]}, {"title": [0, 1, 1, 0], "tags": [0.5, 0.5]}]}`},
			{"two", `{"inputs": {"title": [[1, 0, 0, 1], [0, 1, 1, 0]], "tags": [[1, 0], [0.5, 0.5]]}}`},
			{"text", `{"instances": [[1, 2, 3, 0, 0], [19, 18, 17, 16, 15]]}`},
		} {
			out, err := exec.Command("curl", "-s", "-d", c.body, "-X", "POST", base+"/v1/models/"+c.model+":predict").Output()
			var doc any
			if err != nil || json.Unmarshal(out, &doc) != nil || !sameNumbers(flatJSON(doc), want[c.model]) {
				t.Errorf("curl %s %s: %v %s, want %v\n%s", c.model, c.body, err, out, want[c.model], log)
			}
		}
	}

	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import requests").Run(); err != nil {
		t.Skip("python3 has no requests: the Python client is skipped (sudo apt-get install python3-requests)")
	}
	script := `
import json, sys, requests
base = sys.argv[1]
out = {}
out["seq"] = requests.post(base + "/v1/models/seq:predict", json={"instances": [[1.0, 2.0, 5.0], [-1, 0.5, 0]]}).json()["predictions"]
out["two"] = requests.post(base + "/v1/models/two:predict", json={"instances": [{"title": [1, 0, 0, 1], "tags": [1, 0]}, {"title": [0, 1, 1, 0], "tags": [0.5, 0.5]}]}).json()["predictions"]
out["text"] = requests.post(base + "/v1/models/text:predict", json={"instances": [[1, 2, 3, 0, 0], [19, 18, 17, 16, 15]]}).json()["predictions"]
meta = requests.get(base + "/v1/models/text/metadata").json()
sig = meta["metadata"]["signature_def"]["signature_def"]["serving_default"]
out["text_dtype"] = [v["dtype"] for v in sig["inputs"].values()]
status = requests.get(base + "/v1/models/seq").json()
out["state"] = status["model_version_status"][0]["state"]
json.dump(out, sys.stdout)
`
	raw, err := exec.Command(py, "-c", script, base).CombinedOutput()
	if err != nil {
		t.Fatalf("the Python client failed: %v\n%s", err, raw)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("the Python client printed %s", raw)
	}
	for _, m := range []string{"seq", "two", "text"} {
		if !sameNumbers(flatJSON(got[m]), want[m]) {
			t.Errorf("Python client, %s: %v, want %v", m, got[m], want[m])
		}
	}
	if dt, _ := json.Marshal(got["text_dtype"]); string(dt) != `["DT_INT32"]` || got["state"] != "AVAILABLE" {
		t.Errorf("Python client: metadata dtypes %s, state %v", dt, got["state"])
	}
}
