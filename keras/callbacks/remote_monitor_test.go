package callbacks_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kerasgo/kerasgo/keras/callbacks"
)

// RemoteMonitor posts each epoch's logs to a local server as Keras's
// does: a form field holding the JSON by default, a JSON body with
// SendAsJSON, its headers with each; a server that is down gives a
// warning, not an error.
func TestRemoteMonitorPostsEachEpoch(t *testing.T) {
	var mu sync.Mutex
	var got []map[string]any
	var headers []string
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path != "/publish/epoch/end/" || r.Method != http.MethodPost {
			t.Errorf("request %s %s, want POST /publish/epoch/end/", r.Method, r.URL.Path)
		}
		raw, _ := io.ReadAll(r.Body)
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			var v map[string]any
			if err := json.Unmarshal(raw, &v); err != nil {
				t.Errorf("JSON body %q: %v", raw, err)
			}
			got = append(got, v)
		} else {
			r.Body = io.NopCloser(bytes.NewReader(raw))
			if err := r.ParseForm(); err != nil {
				t.Error(err)
			}
			var v map[string]any
			if err := json.Unmarshal([]byte(r.PostForm.Get("data")), &v); err != nil {
				t.Errorf("form field data %q: %v", r.PostForm.Get("data"), err)
			}
			got = append(got, v)
		}
		headers = append(headers, r.Header.Get("X-Run"))
	}))
	defer server.Close()
	logs := callbacks.Logs{{Name: "loss", Value: 0.5}, {Name: "val_accuracy", Value: 0.75}}
	form := &callbacks.RemoteMonitor{Root: server.URL, Headers: map[string]string{"X-Run": "a"}}
	asJSON := &callbacks.RemoteMonitor{Root: server.URL, SendAsJSON: true, Headers: map[string]string{"X-Run": "b"}}
	form.OnEpochEnd(0, logs)
	asJSON.OnEpochEnd(1, logs)
	if len(got) != 2 {
		t.Fatalf("the server got %d posts, want 2", len(got))
	}
	for i, v := range got {
		if v["epoch"] != float64(i) || v["loss"] != 0.5 || v["val_accuracy"] != 0.75 {
			t.Errorf("post %d: %v", i, v)
		}
	}
	if headers[0] != "a" || headers[1] != "b" {
		t.Errorf("headers %v, want [a b]", headers)
	}
	var warnings bytes.Buffer
	down := &callbacks.RemoteMonitor{Root: "http://127.0.0.1:1", Warnings: &warnings}
	down.OnEpochEnd(0, logs)
	if down.Failures() != 1 || !strings.Contains(warnings.String(), "RemoteMonitor could not reach its root server at http://127.0.0.1:1") {
		t.Errorf("unreachable server: %d failures, warning %q", down.Failures(), warnings.String())
	}
}
