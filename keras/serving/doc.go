// Package serving serves Keras models over HTTP with TensorFlow Serving's
// REST API, so that clients written for TensorFlow Serving work unchanged
// against one Go binary (kerasgo serve) or a Go program's own mux.
//
//	srv, err := serving.NewServer(serving.Options{})
//	err = srv.AddFile("fashion", "model.keras") // a file Keras or kerasgo saved
//	http.ListenAndServe(":8501", srv)
//
// The API, as TensorFlow Serving's (https://www.tensorflow.org/tfx/serving/api_rest):
//
//	GET  /v1/models/<name>            the versions serving, AVAILABLE
//	GET  /v1/models/<name>/metadata   the serving_default signature: inputs and outputs with dtypes and shapes
//	POST /v1/models/<name>:predict    {"instances": [...]} (one entry per sample) or {"inputs": ...} (one batch per input)
//	POST /v1/models/<name>:classify   {"examples": [{<feature>: ...}, ...], "context": {...}}: class scores
//	POST /v1/models/<name>:regress    the same request: one value per example
//
// After the name, /versions/<n> or /labels/<label> names a version
// (AddVersion, SetLabel); without, the highest serves. Inputs and outputs
// are named after the model's input and output layers; an input made
// with layers.IntInput takes integers (token ids), one made with
// layers.StringInput strings or {"b64": ...} binary values. A body may be
// gzip-compressed (Content-Encoding: gzip). For :classify and :regress,
// which need a tf.Example signature in TensorFlow Serving, features map
// to inputs by name; the model has one output (scores per class; one
// value). Errors are {"error": "..."} with TensorFlow Serving's status
// codes: 400 for a request the model cannot take (naming the input and
// the shape it takes), 404 for an unknown model, version, label or
// method, 408 for a body slower than Options.BodyTimeout, 413 for a body
// over Options.MaxBodyBytes, 415 for a Content-Encoding other than gzip,
// 503 when the queue is full or the server is shutting down, 504 past
// Options.RequestTimeout (the request's engine work then stops between
// batches). Beside the API: /metrics (Prometheus), /healthz and /readyz.
//
// # Batching
//
// Concurrent requests are gathered into engine batches (dynamic batching,
// as TensorFlow Serving's batching: BatchingOptions), so that throughput
// under load is that of batched inference. Each request is checked
// against the model's inputs before it joins a batch, so one bad request
// fails alone.
//
// # Versions and reloads
//
// A file served with AddFile is watched: when it changes (a new Save, an
// upload renamed into place), the new file is loaded and checked (it
// loads, its weights are finite, it predicts a sample of zeros) before it
// replaces the version serving; the requests the old version holds are
// answered by it, the later ones by the new one, and none is dropped. A
// file that fails to load is logged and counted in /metrics, and the old
// version keeps serving.
//
// # Differences from TensorFlow Serving
//
// kerasgo serves the REST API only (no gRPC); versions are given one by
// one (AddVersion, or kerasgo serve's base directory), without TensorFlow
// Serving's version policies; a file served with AddFile is one version,
// replaced by its next; :classify answers each class's score with an
// empty label, as TensorFlow Serving does for a model without class
// names.
//
// # Concurrency
//
// A Server is safe for concurrent use: any number of requests run at once;
// AddFile, AddModel, Reload, Drain and Close may be called from any
// goroutine.
package serving
