package serving_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/serving"
)

// mlp returns a small Sequential model on an engine, its weights seeded.
func mlp(t *testing.T, engine string, seed int64) *keras.Model {
	t.Helper()
	m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{4}}, &layers.Dense{Units: 8, Activation: "tanh"}, &layers.Dense{Units: 3, Activation: "softmax"}))
	keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Backend: engine, Seed: seed}))
	return m
}

// twoInOut returns a functional model with two named inputs and two
// named outputs.
func twoInOut(t *testing.T, engine string) *keras.Model {
	t.Helper()
	title := layers.NamedInput("title", 4)
	tags := layers.NamedInput("tags", 2)
	h := layers.Apply(&layers.Concatenate{}, title, tags)
	priority := layers.Apply(layers.Named("priority", &layers.Dense{Units: 1}), h)
	department := layers.Apply(layers.Named("department", &layers.Dense{Units: 2, Activation: "softmax"}), h)
	m := keras.Must(keras.NewFunctional([]*layers.KerasTensor{title, tags}, []*layers.KerasTensor{priority, department}))
	keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.ByPosition[losses.Loss](losses.MeanSquaredError{}, losses.SparseCategoricalCrossentropy{}), Backend: engine, Seed: 2}))
	return m
}

// textModel returns a model over token ids (an int input).
func textModel(t *testing.T, engine string) *keras.Model {
	t.Helper()
	ids := layers.IntInput(5)
	e := layers.Apply(&layers.Embedding{InputDim: 10, OutputDim: 3}, ids)
	out := layers.Apply(&layers.Dense{Units: 2}, layers.Apply(&layers.GlobalAveragePooling1D{}, e))
	m := keras.Must(keras.NewModel(ids, out))
	keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Backend: engine, Seed: 3}))
	return m
}

func newServer(t *testing.T, opts serving.Options, models map[string]*keras.Model) *httptest.Server {
	t.Helper()
	srv, err := serving.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range models {
		if err := srv.AddModel(name, m); err != nil {
			t.Fatal(err)
		}
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return hs
}

// call sends a request and returns the status and the decoded JSON body.
func call(t *testing.T, method, url, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: the body is not JSON (%v): %s", method, url, err, raw)
	}
	return resp.StatusCode, out
}

// flat returns the numbers of nested JSON lists in order.
func flat(v any) []float64 {
	switch x := v.(type) {
	case float64:
		return []float64{x}
	case []any:
		var out []float64
		for _, e := range x {
			out = append(out, flat(e)...)
		}
		return out
	}
	panic(fmt.Sprintf("not a number or a list: %T", v))
}

func maxDiff(got []float64, want []float32) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range got {
		d = max(d, math.Abs(got[i]-float64(want[i])))
	}
	return d
}

// jsonRows writes samples as the JSON list of their nested lists.
func jsonRows(data []float32, rows int) string {
	per := len(data) / rows
	var b strings.Builder
	b.WriteByte('[')
	for r := range rows {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('[')
		for i, v := range data[r*per : (r+1)*per] {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, v)
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.String()
}

var sampleX = []float32{0.1, -0.2, 0.3, 0.4, 1, 0, -1, 0.5, 0.25, 0.75, -0.5, 2}

// The row and the columnar formats answer what Predict answers, on every
// engine, and status and metadata describe the model as TensorFlow
// Serving would.
func TestPredictAnswersWhatPredictReturns(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := mlp(t, be.Name(), 1)
		want := keras.Must(m.Predict(context.Background(), keras.Must(keras.NewArray(sampleX, 3, 4)), keras.PredictOptions{}))
		hs := newServer(t, serving.Options{}, map[string]*keras.Model{"mlp": m})

		code, out := call(t, "POST", hs.URL+"/v1/models/mlp:predict", `{"instances": `+jsonRows(sampleX, 3)+`}`)
		if code != 200 {
			t.Fatalf("instances: %d %v", code, out)
		}
		if d := maxDiff(flat(out["predictions"]), want.Data); d > 1e-6 {
			t.Fatalf("instances: predictions differ from Predict's by %g: %v", d, out)
		}
		if n := len(out["predictions"].([]any)); n != 3 {
			t.Fatalf("instances: %d predictions, want 3", n)
		}
		code, out = call(t, "POST", hs.URL+"/v1/models/mlp/versions/1:predict", `{"signature_name": "serving_default", "inputs": `+jsonRows(sampleX, 3)+`}`)
		if code != 200 {
			t.Fatalf("inputs: %d %v", code, out)
		}
		if d := maxDiff(flat(out["outputs"]), want.Data); d > 1e-6 {
			t.Fatalf("inputs: outputs differ from Predict's by %g", d)
		}

		code, out = call(t, "GET", hs.URL+"/v1/models/mlp", "")
		status := out["model_version_status"].([]any)[0].(map[string]any)
		if code != 200 || status["version"] != "1" || status["state"] != "AVAILABLE" {
			t.Fatalf("status: %d %v", code, out)
		}
		code, out = call(t, "GET", hs.URL+"/v1/models/mlp/metadata", "")
		sig := out["metadata"].(map[string]any)["signature_def"].(map[string]any)["signature_def"].(map[string]any)["serving_default"].(map[string]any)
		in := sig["inputs"].(map[string]any)[m.InputNames()[0]].(map[string]any)
		dims := in["tensor_shape"].(map[string]any)["dim"].([]any)
		if code != 200 || in["dtype"] != "DT_FLOAT" || len(dims) != 2 || dims[0].(map[string]any)["size"] != "-1" || dims[1].(map[string]any)["size"] != "4" {
			t.Fatalf("metadata: %d %v", code, out)
		}
		if _, ok := sig["outputs"].(map[string]any)[m.OutputNames()[0]]; !ok {
			t.Fatalf("metadata: no output named %q: %v", m.OutputNames()[0], sig["outputs"])
		}
	})
}

// A functional model takes its inputs by name and answers its outputs by
// name, in both formats; an int input takes token ids.
func TestPredictNamedInputsOutputsAndTokenIDs(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := twoInOut(t, be.Name())
		text := textModel(t, be.Name())
		hs := newServer(t, serving.Options{}, map[string]*keras.Model{"two": m, "text": text})
		title := []float32{1, 0, 0, 1, 0, 1, 1, 0}
		tags := []float32{1, 0, 0.5, 0.5}
		want := keras.Must(m.PredictOutputs(context.Background(), keras.NamedArrays{
			"title": keras.Must(keras.NewArray(title, 2, 4)), "tags": keras.Must(keras.NewArray(tags, 2, 2))}, keras.PredictOptions{}))

		code, out := call(t, "POST", hs.URL+"/v1/models/two:predict",
			`{"instances": [{"title": [1,0,0,1], "tags": [1,0]}, {"tags": [0.5,0.5], "title": [0,1,1,0]}]}`)
		if code != 200 {
			t.Fatalf("instances: %d %v", code, out)
		}
		var priority, department []float64
		for _, p := range out["predictions"].([]any) {
			priority = append(priority, flat(p.(map[string]any)["priority"])...)
			department = append(department, flat(p.(map[string]any)["department"])...)
		}
		if maxDiff(priority, want[0].Data) > 1e-6 || maxDiff(department, want[1].Data) > 1e-6 {
			t.Fatalf("instances: %v, want %v", out, want)
		}
		code, out = call(t, "POST", hs.URL+"/v1/models/two:predict",
			`{"inputs": {"title": [[1,0,0,1],[0,1,1,0]], "tags": [[1,0],[0.5,0.5]]}}`)
		outs := out["outputs"].(map[string]any)
		if code != 200 || maxDiff(flat(outs["priority"]), want[0].Data) > 1e-6 || maxDiff(flat(outs["department"]), want[1].Data) > 1e-6 {
			t.Fatalf("inputs: %d %v, want %v", code, out, want)
		}

		ids := []int32{1, 2, 3, 0, 0, 9, 8, 7, 6, 5}
		wantText := keras.Must(text.Predict(context.Background(), keras.Must(keras.NewIntArray(ids, 2, 5)), keras.PredictOptions{}))
		code, out = call(t, "POST", hs.URL+"/v1/models/text:predict", `{"instances": [[1,2,3,0,0],[9,8,7,6,5]]}`)
		if code != 200 || maxDiff(flat(out["predictions"]), wantText.Data) > 1e-6 {
			t.Fatalf("token ids: %d %v, want %v", code, out, wantText.Data)
		}
		code, out = call(t, "GET", hs.URL+"/v1/models/text/metadata", "")
		if code != 200 || !strings.Contains(fmt.Sprint(out), "DT_INT32") {
			t.Fatalf("text metadata: %d %v, want an input of DT_INT32", code, out)
		}
	})
}

// Requests a model cannot take are answered with TensorFlow Serving's
// error body and status, naming what is wrong; none reaches an engine.
func TestBadRequestsAreNamed(t *testing.T) {
	m := mlp(t, "", 1)
	text := textModel(t, "")
	hs := newServer(t, serving.Options{MaxBodyBytes: 4096}, map[string]*keras.Model{"mlp": m, "text": text})
	two := newServer(t, serving.Options{}, map[string]*keras.Model{"two": twoInOut(t, "")})
	big := `{"instances": [` + strings.Repeat(`[1,2,3,4],`, 500) + `[1,2,3,4]]}`
	for _, c := range []struct {
		method, url, body string
		code              int
		says              string
	}{
		{"POST", "/v1/models/nope:predict", `{"instances": [[1,2,3,4]]}`, 404, `Servable not found for request: Latest(nope)`},
		{"GET", "/v1/models/mlp/versions/7", "", 404, "the versions serving are [1]"},
		{"GET", "/v1/models/mlp/versions/x7", "", 400, "a version is a positive number"},
		{"GET", "/v1/models/mlp/labels/stable", "", 404, "Unrecognized servable version label: stable"},
		{"POST", "/v1/models/mlp:explain", `{}`, 404, `unknown method "explain"`},
		{"GET", "/v1/models/mlp:predict", "", 405, "predict needs POST"},
		{"POST", "/v1/models/mlp:classify", `{}`, 400, `"examples" is missing`},
		{"POST", "/v1/models/mlp:regress", `{"examples": [{"input_layer": [1,2,3,4]}]}`, 400, ":regress needs an output of one value per sample"},
		{"POST", "/v1/models/mlp:predict", `{"instances": [[1,2,3,4]]`, 400, "invalid JSON"},
		{"POST", "/v1/models/mlp:predict", `{"instance": [[1,2,3,4]]}`, 400, `unknown key "instance"`},
		{"POST", "/v1/models/mlp:predict", `{"instances": [[1,2,3]]}`, 400, `instance 0 has shape (3,), but the model takes (4,) per instance (Keras shape (None, 4))`},
		{"POST", "/v1/models/mlp:predict", `{"instances": [[1,2,3,4],[1,2,3]]}`, 400, `instance 1 is a list of 3, want a list of 4`},
		{"POST", "/v1/models/mlp:predict", `{"instances": [[1,2,NaN,4]]}`, 400, `instance 0[2] is NaN: NaN and infinite inputs are refused`},
		{"POST", "/v1/models/mlp:predict", `{"instances": [[1,2,-Infinity,4]]}`, 400, `is -Inf`},
		{"POST", "/v1/models/mlp:predict", `{"instances": [[1,2,"3",4]]}`, 400, `instance 0[2] is a string, want a number`},
		{"POST", "/v1/models/mlp:predict", `{"instances": [[1,2,1e39,4]]}`, 400, `outside float32's range`},
		{"POST", "/v1/models/mlp:predict", `{"inputs": [1,2,3,4]}`, 400, `has shape (4,), but the model takes (None, 4): samples first`},
		{"POST", "/v1/models/mlp:predict", `{"instances": []}`, 400, `"instances" is empty`},
		{"POST", "/v1/models/mlp:predict", `{"instances": [[1,2,3,4]], "signature_name": "predict"}`, 400, `unknown signature_name`},
		{"POST", "/v1/models/mlp:predict", big, 413, "larger than 4096 bytes"},
		{"POST", "/v1/models/text:predict", `{"instances": [[1,2,3.5,0,0]]}`, 400, `is 3.5, but the input takes integers`},
		{"POST", "/v1/models/text:predict", `{"instances": [[1,2,30,0,0]]}`, 400, `embedding`},
		{"POST", "/v1/models/two:predict", `{"instances": [[1,0,0,1]]}`, 400, `the model has 2 inputs [title tags], so each instance is an object`},
		{"POST", "/v1/models/two:predict", `{"instances": [{"title": [1,0,0,1]}]}`, 400, `no entry for input "tags"`},
		{"POST", "/v1/models/two:predict", `{"inputs": {"title": [[1,0,0,1]], "tags": [[1,0]], "extra": [1]}}`, 400, `an entry for "extra", which is not an input`},
		{"POST", "/v1/models/two:predict", `{"inputs": {"title": [[1,0,0,1]], "tags": [[1,0],[0,1]]}}`, 400, `input "tags" holds 2 samples but input "title" holds 1`},
	} {
		base := hs.URL
		if strings.Contains(c.url, "/two") {
			base = two.URL
		}
		code, out := call(t, c.method, base+c.url, c.body)
		msg, _ := out["error"].(string)
		if code != c.code || !strings.Contains(msg, c.says) {
			t.Errorf("%s %s %.60s: got %d %q, want %d saying %q", c.method, c.url, c.body, code, msg, c.code, c.says)
		}
	}
	// The model still answers after all that.
	if code, out := call(t, "POST", hs.URL+"/v1/models/mlp:predict", `{"instances": [[1,2,3,4]]}`); code != 200 {
		t.Fatalf("after the bad requests: %d %v", code, out)
	}
}

// Non-finite inputs pass to the model when the server allows them, and
// non-finite outputs are written as TensorFlow Serving writes them.
func TestAllowNonFinite(t *testing.T) {
	hs := newServer(t, serving.Options{AllowNonFinite: true}, map[string]*keras.Model{"mlp": mlp(t, "", 1)})
	resp, err := http.Post(hs.URL+"/v1/models/mlp:predict", "application/json", strings.NewReader(`{"instances": [[1,2,NaN,4]]}`))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(raw) != `{"predictions":[[NaN,NaN,NaN]]}` {
		t.Fatalf("got %d %s, want the model's NaN outputs", resp.StatusCode, raw)
	}
}

// A request out of time is answered 504, and the server keeps serving.
func TestRequestTimeout(t *testing.T) {
	hs := newServer(t, serving.Options{RequestTimeout: time.Nanosecond}, map[string]*keras.Model{"mlp": mlp(t, "", 1)})
	code, out := call(t, "POST", hs.URL+"/v1/models/mlp:predict", `{"instances": [[1,2,3,4]]}`)
	if code != 504 || !strings.Contains(out["error"].(string), "took longer than 1ns") {
		t.Fatalf("got %d %v, want 504", code, out)
	}
}

// Concurrent requests over HTTP each get their own answer, equal to what
// Predict returns for their samples alone, whichever batches they ran in.
// (That queued requests form one batch is TestQueuedRequestsRunAsOneBatch's
// job: over HTTP, how many requests meet in the queue depends on timing.)
func TestDynamicBatching(t *testing.T) {
	m := mlp(t, "", 5)
	opts := serving.Options{Batching: serving.BatchingOptions{Timeout: 50 * time.Millisecond, Workers: 1, MaxBatchSize: 16}}
	hs := newServer(t, opts, map[string]*keras.Model{"mlp": m})
	const clients = 12
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	start := make(chan struct{})
	for i := range clients {
		x := []float32{float32(i), 1, -float32(i) / 3, 0.5}
		rows := 1 + i%3 // requests of 1 to 3 samples
		data := make([]float32, 0, 4*rows)
		for range rows {
			data = append(data, x...)
		}
		want := keras.Must(m.Predict(context.Background(), keras.Must(keras.NewArray(data, rows, 4)), keras.PredictOptions{}))
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start // the clients send together
			resp, err := http.Post(hs.URL+"/v1/models/mlp:predict", "application/json", strings.NewReader(`{"instances": `+jsonRows(data, rows)+`}`))
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			var out map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
				errs <- fmt.Errorf("client %d: %d %v %v", i, resp.StatusCode, out, err)
				return
			}
			if d := maxDiff(flat(out["predictions"]), want.Data); d > 1e-6 {
				errs <- fmt.Errorf("client %d: the answer differs from Predict's by %g", i, d)
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	metrics := get(t, hs.URL+"/metrics")
	count, sum := metricValue(metrics, `kerasgo_serving_batch_size_count{model="mlp"}`), metricValue(metrics, `kerasgo_serving_batch_size_sum{model="mlp"}`)
	if sum != 24 || count < 1 || count > clients {
		t.Fatalf("%v batches held %v samples: want the 24 samples of %d requests in 1 to %d batches", count, sum, clients, clients)
	}
	t.Logf("%d requests ran as %v engine batches", clients, count)
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// metricValue returns the value of a sample in Prometheus's text format.
func metricValue(text, sample string) float64 {
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, sample+" "); ok {
			var v float64
			fmt.Sscan(rest, &v)
			return v
		}
	}
	return math.NaN()
}

// /metrics, /healthz and /readyz answer; Drain makes the server not ready.
func TestMetricsHealthReadiness(t *testing.T) {
	srv, err := serving.NewServer(serving.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	if code := status(t, hs.URL+"/readyz"); code != 503 {
		t.Fatalf("readyz with no model: %d, want 503", code)
	}
	keras.MustOK(srv.AddModel("mlp", mlp(t, "", 1)))
	if code := status(t, hs.URL+"/readyz"); code != 200 {
		t.Fatalf("readyz: %d, want 200", code)
	}
	call(t, "POST", hs.URL+"/v1/models/mlp:predict", `{"instances": [[1,2,3,4]]}`)
	call(t, "POST", hs.URL+"/v1/models/mlp:predict", `{"instances": [[1,2,3]]}`)
	metrics := get(t, hs.URL+"/metrics")
	for _, want := range []string{
		`kerasgo_serving_requests_total{api="predict",code="200",model="mlp"} 1`,
		`kerasgo_serving_requests_total{api="predict",code="400",model="mlp"} 1`,
		`kerasgo_serving_predict_duration_seconds_count{model="mlp"} 1`,
		`kerasgo_serving_model_version{model="mlp"} 1`,
		`process_resident_memory_bytes`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	srv.Drain()
	if code := status(t, hs.URL+"/readyz"); code != 503 {
		t.Fatalf("readyz after Drain: %d, want 503", code)
	}
	if code := status(t, hs.URL+"/healthz"); code != 200 {
		t.Fatalf("healthz after Drain: %d, want 200", code)
	}
	if code, _ := call(t, "POST", hs.URL+"/v1/models/mlp:predict", `{"instances": [[1,2,3,4]]}`); code != 200 {
		t.Fatalf("a request after Drain: %d, want it answered", code)
	}
}

func status(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Replacing the served file under load: every request is answered, first
// by the old model, then by the new one; a broken file does not replace
// it.
func TestHotReloadUnderLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.keras")
	old, next := mlp(t, "", 1), mlp(t, "", 2)
	keras.MustOK(old.Save(path))
	x := keras.Must(keras.NewArray(sampleX[:4], 1, 4))
	wantOld := keras.Must(old.Predict(context.Background(), x, keras.PredictOptions{}))
	wantNew := keras.Must(next.Predict(context.Background(), x, keras.PredictOptions{}))

	srv, err := serving.NewServer(serving.Options{ReloadInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	keras.MustOK(srv.AddFile("mlp", path))
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	answers := map[string]int{}
	var failures []string
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				resp, err := http.Post(hs.URL+"/v1/models/mlp:predict", "application/json", strings.NewReader(`{"instances": `+jsonRows(x.Data, 1)+`}`))
				if err != nil {
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
					return
				}
				var out map[string]any
				json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				mu.Lock()
				switch {
				case resp.StatusCode != 200:
					failures = append(failures, fmt.Sprint(resp.StatusCode, out))
				case maxDiff(flat(out["predictions"]), wantOld.Data) < 1e-6:
					answers["old"]++
				case maxDiff(flat(out["predictions"]), wantNew.Data) < 1e-6:
					answers["new"]++
				default:
					failures = append(failures, fmt.Sprint("an answer from neither model: ", out))
				}
				mu.Unlock()
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	keras.MustOK(next.Save(path))
	if err := srv.Reload(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	cancel()
	wg.Wait()
	if len(failures) > 0 || answers["old"] == 0 || answers["new"] == 0 {
		t.Fatalf("answers %v, failures %d %.3v", answers, len(failures), failures)
	}
	t.Logf("answers during the reload: %v", answers)
	if code, out := call(t, "GET", hs.URL+"/v1/models/mlp", ""); code != 200 || !strings.Contains(fmt.Sprint(out), "version:2") {
		t.Fatalf("status after the reload: %d %v, want version 2", code, out)
	}

	// A broken file: the reload fails, version 2 keeps serving, and the
	// failure is not retried until the file changes again.
	if err := writeFile(path, "not a keras file"); err != nil {
		t.Fatal(err)
	}
	if err := srv.Reload(); err == nil || !strings.Contains(err.Error(), "version 2 keeps serving") {
		t.Fatalf("reloading a broken file: %v", err)
	}
	if err := srv.Reload(); err != nil {
		t.Fatalf("a second check of the same broken file: %v, want no new attempt", err)
	}
	code, out := call(t, "POST", hs.URL+"/v1/models/mlp:predict", `{"instances": `+jsonRows(x.Data, 1)+`}`)
	if code != 200 || maxDiff(flat(out["predictions"]), wantNew.Data) > 1e-6 {
		t.Fatalf("after a failed reload: %d %v, want version 2's answer", code, out)
	}
	if metrics := get(t, hs.URL+"/metrics"); !strings.Contains(metrics, `kerasgo_serving_model_loads_total{model="mlp",result="failed"} 1`) {
		t.Fatalf("/metrics does not count the failed load")
	}
}

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o644) }

// fixturesDir holds .keras files written by Python Keras, with their
// expected outputs (../shared beside the repository).
const fixturesDir = "../../../shared/keras-fixtures"

// Models written by Keras itself, served from their files: a client gets
// Keras's outputs (within 1e-5: Keras computes in float32), on every
// engine.
func TestServeKerasWrittenFiles(t *testing.T) {
	if _, err := os.Stat(fixturesDir); err != nil {
		t.Skipf("no Keras fixtures at %s (../shared beside the repository, as CI has it): %v", fixturesDir, err)
	}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, name := range []string{"Carine-Ashimwe__Summative-Assignment-SAHeart-Project", "Dhivyadharsrini18__Tesla-Stock-Forecasting-LSTM"} {
			raw, err := os.ReadFile(filepath.Join(fixturesDir, name+".ref.json"))
			if err != nil {
				t.Fatal(err)
			}
			var ref struct {
				Input struct {
					Values any `json:"values"`
				} `json:"input"`
				Outputs any `json:"outputs"`
			}
			if err := json.Unmarshal(raw, &ref); err != nil {
				t.Fatal(err)
			}
			srv, err := serving.NewServer(serving.Options{Backend: be.Name(), ReloadInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			if err := srv.AddFile("m", filepath.Join(fixturesDir, name+".keras")); err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(srv)
			body, _ := json.Marshal(map[string]any{"instances": ref.Input.Values})
			code, out := call(t, "POST", hs.URL+"/v1/models/m:predict", string(body))
			hs.Close()
			srv.Close()
			want := flat(ref.Outputs)
			got := flat(out["predictions"])
			if code != 200 || len(got) != len(want) {
				t.Fatalf("%s: %d %v", name, code, out)
			}
			d := 0.0
			for i := range got {
				d = max(d, math.Abs(got[i]-want[i]))
			}
			if d > 1e-5 {
				t.Fatalf("%s: served predictions differ from Keras's by %g", name, d)
			}
			t.Logf("%s: %d predictions, within %.2g of Keras's", name, len(got), d)
		}
	})
}
