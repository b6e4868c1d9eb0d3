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
//	GET  /v1/models/<name>            the version serving, AVAILABLE
//	GET  /v1/models/<name>/metadata   the serving_default signature: inputs and outputs with dtypes and shapes
//	POST /v1/models/<name>:predict    {"instances": [...]} (one entry per sample) or {"inputs": ...} (one batch per input)
//
// A path may name the version serving (/v1/models/<name>/versions/<n>).
// Inputs and outputs are named after the model's input and output layers;
// an input made with layers.IntInput takes integers (token ids). Errors
// are {"error": "..."} with TensorFlow Serving's status codes: 400 for a
// request the model cannot take (naming the input and the shape it
// takes), 404 for an unknown model or version, 413 for a body over
// Options.MaxBodyBytes, 503 when the queue is full or the server is
// shutting down, 504 past Options.RequestTimeout. Beside the API:
// /metrics (Prometheus), /healthz and /readyz.
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
// kerasgo serves the REST API only (no gRPC), one version of each model
// (the latest file), the predict method (:classify and :regress need a
// tf.Example signature, which Keras models do not have), numbers only (no
// {"b64": ...} strings), and no version labels.
//
// # Concurrency
//
// A Server is safe for concurrent use: any number of requests run at once;
// AddFile, AddModel, Reload, Drain and Close may be called from any
// goroutine.
package serving
