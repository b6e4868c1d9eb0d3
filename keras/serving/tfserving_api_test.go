package serving_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/serving"
)

// The tests of this file follow TensorFlow Serving's REST API document
// (https://www.tensorflow.org/tfx/serving/api_rest): its request and
// response formats, word for word where it gives them.

// stringModel returns a text model: raw strings in, scores out.
func stringModel(t *testing.T) *keras.Model {
	t.Helper()
	in := layers.StringInput(1)
	ids := layers.Apply(&layers.TextVectorization{Vocabulary: []string{"good", "bad", "day", "night"}, OutputSequenceLength: 4}, in)
	h := layers.Apply(&layers.GlobalAveragePooling1D{}, layers.Apply(&layers.Embedding{InputDim: 6, OutputDim: 3}, ids))
	m := keras.Must(keras.NewModel(in, layers.Apply(&layers.Dense{Units: 2, Activation: "softmax"}, h)))
	keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 7}))
	return m
}

// "Encoding binary values": a string input takes JSON strings and
// {"b64": "<base64>"} objects, in the row and the columnar format; before,
// a b64 value was read as an object of named inputs ("has no entry for
// input", issue 39). The metadata says DT_STRING.
func TestB64AndStringInputs(t *testing.T) {
	m := stringModel(t)
	hs := newServer(t, serving.Options{}, map[string]*keras.Model{"text": m})
	texts := []string{"good day", "bad night night", "unknown words here"}
	want := keras.Must(m.Predict(context.Background(), keras.Must(keras.NewStringArray(texts, 3, 1)), keras.PredictOptions{}))
	b64 := func(s string) string { return `{"b64": "` + base64.StdEncoding.EncodeToString([]byte(s)) + `"}` }
	for name, body := range map[string]string{
		"strings":  `{"instances": [["good day"], ["bad night night"], ["unknown words here"]]}`,
		"b64":      `{"instances": [[` + b64(texts[0]) + `], [` + b64(texts[1]) + `], [` + b64(texts[2]) + `]]}`,
		"mixed":    `{"instances": [["good day"], [` + b64(texts[1]) + `], ["unknown words here"]]}`,
		"columnar": `{"inputs": [[` + b64(texts[0]) + `], ["bad night night"], [` + b64(texts[2]) + `]]}`,
	} {
		code, out := call(t, "POST", hs.URL+"/v1/models/text:predict", body)
		if code != 200 {
			t.Fatalf("%s: %d %v", name, code, out)
		}
		key := "predictions"
		if name == "columnar" {
			key = "outputs"
		}
		if d := maxDiff(flat(out[key]), want.Data); d > 1e-6 {
			t.Errorf("%s: answers differ from Predict by %g", name, d)
		}
	}
	code, out := call(t, "GET", hs.URL+"/v1/models/text/metadata", "")
	if code != 200 || !strings.Contains(toJSON(out), `"dtype":"DT_STRING"`) {
		t.Errorf("metadata %d %v, want DT_STRING for the input", code, out)
	}
	for body, says := range map[string]string{
		`{"instances": [[{"b64": "not base64!"}]]}`: "not standard base64",
		`{"instances": [[{"b64": 3}]]}`:             `{"b64": a number}`,
		`{"instances": [[3]]}`:                      "want a string",
	} {
		code, out := call(t, "POST", hs.URL+"/v1/models/text:predict", body)
		if code != 400 || !strings.Contains(out["error"].(string), says) {
			t.Errorf("%s: %d %v, want 400 saying %q", body, code, out, says)
		}
	}
	// b64 where numbers go is an error naming the input's dtype.
	hs2 := newServer(t, serving.Options{}, map[string]*keras.Model{"mlp": mlp(t, "", 1)})
	code, out = call(t, "POST", hs2.URL+"/v1/models/mlp:predict", `{"instances": [[{"b64": "AAAA"}, 1, 2, 3]]}`)
	if code != 400 || !strings.Contains(out["error"].(string), "b64 is for string inputs") {
		t.Errorf("b64 for a float input: %d %v", code, out)
	}
}

// toJSON writes a decoded JSON value back compactly, for substring checks.
func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// A gzip-compressed body (Content-Encoding: gzip) is read as its
// decompressed JSON; its decompressed size is bounded by MaxBodyBytes as a
// plain body's is, and another encoding is refused with 415.
func TestGzipBodies(t *testing.T) {
	m := mlp(t, "", 1)
	hs := newServer(t, serving.Options{MaxBodyBytes: 4096}, map[string]*keras.Model{"mlp": m})
	send := func(body []byte, encoding string) (int, map[string]any) {
		req, _ := http.NewRequest("POST", hs.URL+"/v1/models/mlp:predict", bytes.NewReader(body))
		req.Header.Set("Content-Encoding", encoding)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	gz := func(s string) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	want := keras.Must(m.Predict(context.Background(), keras.Must(keras.NewArray(sampleX[:8], 2, 4)), keras.PredictOptions{}))
	code, out := send(gz(`{"instances": `+jsonRows(sampleX[:8], 2)+`}`), "gzip")
	if code != 200 || maxDiff(flat(out["predictions"]), want.Data) > 1e-6 {
		t.Fatalf("gzip body: %d %v", code, out)
	}
	// 100 KB of spaces compress to a few hundred bytes: the decompressed
	// size is what counts.
	code, out = send(gz(`{"instances": [[1,2,3,4]]`+strings.Repeat(" ", 100000)+`}`), "gzip")
	if code != 413 {
		t.Errorf("a gzip body decompressing past MaxBodyBytes: %d %v, want 413", code, out)
	}
	code, out = send([]byte(`{"instances": [[1,2,3,4]]}`), "gzip")
	if code != 400 || !strings.Contains(out["error"].(string), "not gzip data") {
		t.Errorf("a plain body labelled gzip: %d %v", code, out)
	}
	code, out = send([]byte(`{"instances": [[1,2,3,4]]}`), "br")
	if code != 415 || !strings.Contains(out["error"].(string), `Content-Encoding "br"`) {
		t.Errorf("Content-Encoding br: %d %v, want 415", code, out)
	}
}

// Several versions of a model, with version labels, as TensorFlow
// Serving's model status API and URLs describe them: a request naming no
// version gets the highest; /versions/<n> and /labels/<label> name one;
// the status lists every version; a label moves without a restart.
func TestVersionsAndLabels(t *testing.T) {
	dir := t.TempDir()
	models := map[int]*keras.Model{1: mlp(t, "", 1), 2: mlp(t, "", 2)}
	for v, m := range models {
		keras.MustOK(m.Save(filepath.Join(dir, fmt.Sprintf("v%d.keras", v))))
	}
	srv, err := serving.NewServer(serving.Options{ReloadInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	for v := range models {
		keras.MustOK(srv.AddVersion("m", v, filepath.Join(dir, fmt.Sprintf("v%d.keras", v))))
	}
	keras.MustOK(srv.SetLabel("m", "stable", 1))
	keras.MustOK(srv.SetLabel("m", "canary", 2))
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { hs.Close(); srv.Close() })

	x := keras.Must(keras.NewArray(sampleX[:8], 2, 4))
	want := map[int][]float32{}
	for v, m := range models {
		want[v] = keras.Must(m.Predict(context.Background(), x, keras.PredictOptions{})).Data
	}
	body := `{"instances": ` + jsonRows(sampleX[:8], 2) + `}`
	predictIs := func(path string, version int) {
		t.Helper()
		code, out := call(t, "POST", hs.URL+path, body)
		if code != 200 || maxDiff(flat(out["predictions"]), want[version]) > 1e-6 {
			t.Fatalf("POST %s: %d %v, want version %d's answer", path, code, out, version)
		}
	}
	predictIs("/v1/models/m:predict", 2)
	predictIs("/v1/models/m/versions/1:predict", 1)
	predictIs("/v1/models/m/versions/2:predict", 2)
	predictIs("/v1/models/m/labels/stable:predict", 1)
	predictIs("/v1/models/m/labels/canary:predict", 2)

	code, out := call(t, "GET", hs.URL+"/v1/models/m", "")
	if got := toJSON(out["model_version_status"]); code != 200 || !strings.Contains(got, `"version":"1"`) || !strings.Contains(got, `"version":"2"`) {
		t.Fatalf("status of every version: %d %s", code, got)
	}
	code, out = call(t, "GET", hs.URL+"/v1/models/m/versions/1", "")
	if got := toJSON(out["model_version_status"]); code != 200 || strings.Contains(got, `"version":"2"`) || !strings.Contains(got, `"state":"AVAILABLE"`) {
		t.Fatalf("status of version 1: %d %s", code, got)
	}
	code, out = call(t, "GET", hs.URL+"/v1/models/m/labels/stable/metadata", "")
	if got := toJSON(out["model_spec"]); code != 200 || !strings.Contains(got, `"version":"1"`) {
		t.Fatalf("metadata of the stable label: %d %s", code, got)
	}

	// Moving a label moves its traffic.
	keras.MustOK(srv.SetLabel("m", "stable", 2))
	predictIs("/v1/models/m/labels/stable:predict", 2)

	for _, c := range []struct {
		err  error
		says string
	}{
		{srv.SetLabel("m", "beta", 3), "serves no version 3"},
		{srv.SetLabel("nope", "beta", 1), `no model named "nope"`},
		{srv.SetLabel("m", "a/b", 1), "label"},
		{srv.AddVersion("m", 2, filepath.Join(dir, "v1.keras")), "already serves version 2"},
		{srv.AddVersion("m", 0, filepath.Join(dir, "v1.keras")), "positive version number"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.says) {
			t.Errorf("got %v, want an error saying %q", c.err, c.says)
		}
	}
	keras.MustOK(srv.AddFile("watched", filepath.Join(dir, "v1.keras")))
	if err := srv.AddVersion("watched", 2, filepath.Join(dir, "v2.keras")); err == nil || !strings.Contains(err.Error(), "watched file") {
		t.Errorf("a version beside a watched file: %v", err)
	}
}

// :classify and :regress in TensorFlow Serving's request format
// (examples of features, an optional context shared by all) and response
// format ({"result": ...}), the features mapped to the model's inputs by
// name; the answers are Predict's.
func TestClassifyAndRegress(t *testing.T) {
	title := layers.NamedInput("title", 4)
	tags := layers.NamedInput("tags", 2)
	h := layers.Apply(&layers.Concatenate{}, title, tags)
	classifier := keras.Must(keras.NewFunctional([]*layers.KerasTensor{title, tags}, []*layers.KerasTensor{layers.Apply(&layers.Dense{Units: 3, Activation: "softmax"}, h)}))
	keras.MustOK(classifier.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 3}))
	price := layers.NamedInput("features", 2, 2)
	regressor := keras.Must(keras.NewModel(price, layers.Apply(&layers.Dense{Units: 1}, layers.Apply(&layers.Flatten{}, price))))
	keras.MustOK(regressor.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 4}))
	hs := newServer(t, serving.Options{}, map[string]*keras.Model{"cls": classifier, "reg": regressor, "two": twoInOut(t, "")})

	titles := keras.Must(keras.NewArray([]float32{1, 0, 0, 1, 0.5, 0.5, 0, 0}, 2, 4))
	tagsX := keras.Must(keras.NewArray([]float32{1, 0, 1, 0}, 2, 2))
	scores := keras.Must(classifier.Predict(context.Background(), keras.Arrays{titles, tagsX}, keras.PredictOptions{}))
	code, out := call(t, "POST", hs.URL+"/v1/models/cls:classify", `{
		"signature_name": "serving_default",
		"context": {"tags": [1, 0]},
		"examples": [{"title": [1, 0, 0, 1]}, {"title": [0.5, 0.5, 0, 0]}]}`)
	if code != 200 {
		t.Fatalf(":classify: %d %v", code, out)
	}
	result := out["result"].([]any)
	if len(result) != 2 {
		t.Fatalf(":classify result %v, want one list per example", result)
	}
	for e, pairs := range result {
		for c, pair := range pairs.([]any) {
			p := pair.([]any)
			if p[0] != "" || math.Abs(p[1].(float64)-float64(scores.Data[e*3+c])) > 1e-6 {
				t.Fatalf("example %d class %d: %v, want [\"\", %v]", e, c, p, scores.Data[e*3+c])
			}
		}
	}

	feats := keras.Must(keras.NewArray([]float32{1, 2, 3, 4, -1, 0, 0.5, 2}, 2, 2, 2))
	values := keras.Must(regressor.Predict(context.Background(), feats, keras.PredictOptions{}))
	code, out = call(t, "POST", hs.URL+"/v1/models/reg:regress", `{"examples": [{"features": [[1, 2], [3, 4]]}, {"features": [-1, 0, 0.5, 2]}]}`)
	if code != 200 || maxDiff(flat(out["result"]), values.Data) > 1e-6 {
		t.Fatalf(":regress: %d %v, want %v", code, out, values.Data)
	}

	// A one-unit output (a sigmoid's probability) classifies with one
	// score per example.
	code, out = call(t, "POST", hs.URL+"/v1/models/reg:classify", `{"examples": [{"features": [1, 2, 3, 4]}]}`)
	if pairs, ok := out["result"].([]any); code != 200 || !ok || len(pairs) != 1 || len(pairs[0].([]any)) != 1 {
		t.Fatalf(":classify of a one-unit output: %d %v", code, out)
	}

	for _, c := range []struct{ url, body, says string }{
		{"/v1/models/cls:classify", `{"examples": [{"title": [1, 0, 0, 1]}]}`, `example 0 has no feature "tags"`},
		{"/v1/models/cls:classify", `{"context": {"tags": [1, 0]}, "examples": [{"title": [1, 0, 0, 1], "tags": [0, 1]}]}`, `which "context" has too`},
		{"/v1/models/cls:classify", `{"examples": [{"title": [1, 0, 0], "tags": [0, 1]}]}`, `holds 3 values, want 4`},
		{"/v1/models/cls:classify", `{"examples": [{"title": [1, 0, 0, 1], "tags": [0, 1], "color": 3}]}`, `feature "color", which is not an input`},
		{"/v1/models/cls:regress", `{"examples": [{"title": [1, 0, 0, 1], "tags": [0, 1]}]}`, `:regress needs an output of one value per sample`},
		{"/v1/models/two:classify", `{"examples": [{"title": [1, 0, 0, 1], "tags": [0, 1]}]}`, `:classify needs a model with one output; this one has 2`},
	} {
		code, out := call(t, "POST", hs.URL+c.url, c.body)
		if msg, _ := out["error"].(string); code != 400 || !strings.Contains(msg, c.says) {
			t.Errorf("%s %s: %d %v, want 400 saying %q", c.url, c.body, code, out, c.says)
		}
	}
}
