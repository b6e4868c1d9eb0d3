package callbacks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// RemoteMonitor is keras.callbacks.RemoteMonitor: at the end of each
// epoch it POSTs the epoch's logs, {"epoch": 0, "loss": 0.41, ...}, to
// Root+Path, as a form field (Field, whose value is the JSON) or, with
// SendAsJSON, as a JSON body. A server that cannot be reached (or
// answers with an error status) does not stop training: as Keras warns,
// it writes a warning to Warnings (nil: standard error), and Failures
// counts the epochs not delivered.
//
// The zero value posts to Keras's defaults, http://localhost:9000 and
// /publish/epoch/end/, in the form field "data".
type RemoteMonitor struct {
	Base
	Root       string            // default "http://localhost:9000"
	Path       string            // default "/publish/epoch/end/"
	Field      string            // default "data"
	Headers    map[string]string // sent with each request
	SendAsJSON bool
	// Client sends the requests (nil: a client with a 10-second timeout).
	Client *http.Client
	// Warnings receives a line for each epoch that could not be sent
	// (nil: os.Stderr).
	Warnings io.Writer

	failures int
}

// Failures returns how many epochs' logs could not be delivered.
func (r *RemoteMonitor) Failures() int { return r.failures }

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// OnEpochEnd sends the epoch's logs. Only the chief of a data-parallel
// job sends them.
func (r *RemoteMonitor) OnEpochEnd(epoch int, logs Logs) {
	if m := r.Model(); m != nil && !m.IsChief() {
		return
	}
	root := orDefault(r.Root, "http://localhost:9000")
	if err := r.send(root, epoch, logs); err != nil {
		r.failures++
		w := r.Warnings
		if w == nil {
			w = os.Stderr
		}
		fmt.Fprintf(w, "warning: RemoteMonitor could not reach its root server at %s: %v\n", root, err)
	}
}

// send posts one epoch's logs.
func (r *RemoteMonitor) send(root string, epoch int, logs Logs) error {
	values := make(map[string]any, len(logs)+1)
	values["epoch"] = epoch
	for _, l := range logs {
		values[l.Name] = jsonNumber(l.Value)
	}
	payload, err := json.Marshal(values)
	if err != nil {
		return err
	}
	body, contentType := payload, "application/json"
	if !r.SendAsJSON {
		body = []byte(url.Values{orDefault(r.Field, "data"): {string(payload)}}.Encode())
		contentType = "application/x-www-form-urlencoded"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(root, "/")+"/"+strings.TrimPrefix(orDefault(r.Path, "/publish/epoch/end/"), "/"), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	client := r.Client
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("the server answered %s", resp.Status)
	}
	return nil
}

// jsonNumber is a log value JSON can hold: NaN and infinities, which
// JSON has no numbers for, are written as Python's json.dumps writes
// them for Keras (NaN, Infinity), as strings.
func jsonNumber(v float64) any {
	switch {
	case v != v:
		return "NaN"
	case v > 1.7976931348623157e308:
		return "Infinity"
	case v < -1.7976931348623157e308:
		return "-Infinity"
	}
	return v
}
