package serving_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
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
	keras.MustOK(m.Compile(keras.CompileOptions{Optimizer: "sgd", Loss: "mse", Seed: 7}))
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
