package serving

import (
	"fmt"
	"log/slog"
	"runtime"
	"time"
)

// Options configures a Server. The zero value serves with the defaults
// documented on each field.
type Options struct {
	// Backend is the engine the served models run on ("gorgonia",
	// "libtorch", "libtorch:cuda"); empty chooses as Compile does
	// ($KERASGO_BACKEND, ~/.kerasgo/kerasgo.json, gorgonia).
	Backend string

	// Batching gathers concurrent requests into engine batches.
	Batching BatchingOptions

	// MaxBodyBytes bounds a request's body; a larger one is refused with
	// 413. Default 16 MiB (about 40,000 float inputs of 100 values
	// written as JSON).
	MaxBodyBytes int64
	// MaxInFlightBytes bounds the memory of the requests being read,
	// decoded, queued and run, in bytes: each is counted for four times
	// its body (its JSON, its decoded tensors, their batch, and Go's heap
	// room around them) from before its body is read until it is
	// answered, and waits while the others hold the rest (503 if its time
	// runs out first). Default 256 MiB: sixteen concurrent 15.7 MB
	// requests on the demo MLP grew the server's resident memory by
	// 240-246 MB (bench/servemem; at 128 MiB by 141 MB, over: the heap's
	// own overhead shows below 256 MiB). A request counted for more than
	// the bound is refused with 413.
	MaxInFlightBytes int64
	// MaxInstances bounds the samples of one request (413 past it);
	// default 16384.
	MaxInstances int
	// RequestTimeout bounds a request from its arrival to its answer,
	// queueing included; one that takes longer is answered 504 and its
	// engine work stops between batches. Default 30 s.
	RequestTimeout time.Duration
	// BodyTimeout bounds the reading of a request's body (a client
	// sending it slowly, or not at all): past it the request is answered
	// 408 and its connection closed. Default 10 s: a 16 MiB body (the
	// default MaxBodyBytes) takes 7 s at 20 Mbit/s. The server also
	// bounds it by RequestTimeout.
	BodyTimeout time.Duration
	// AllowNonFinite passes NaN and infinite inputs (written NaN,
	// Infinity, -Infinity, as TensorFlow Serving reads them) to the
	// model; by default they are refused with 400 naming the input.
	AllowNonFinite bool
	// ReloadInterval is how often files served with AddFile are checked
	// for a new version (a changed size or modification time). A new
	// version is loaded and checked before it replaces the one serving;
	// one that fails is logged and the old one keeps serving. Default
	// 2 s; negative turns reloading off.
	ReloadInterval time.Duration
	// Logger receives the server's events (loads, reloads, failures);
	// default slog.Default().
	Logger *slog.Logger
}

// BatchingOptions configures dynamic batching, as TensorFlow Serving's
// batching parameters do: the requests that queue while the workers are
// busy (and, with a Timeout, those arriving within it) run as one batch
// of up to MaxBatchSize samples; a request arriving at an idle server
// runs at once. A batch is padded with zero samples to the next of the sizes
// 1, 2, 4, ... MaxBatchSize (TensorFlow Serving's allowed_batch_sizes), so
// the engine compiles a handful of programs, not one per size; the
// padding's outputs are dropped.
type BatchingOptions struct {
	// Disabled runs every request as its own batch (still padded, still
	// queued and bounded as below).
	Disabled bool
	// MaxBatchSize is the most samples in one engine batch (default 32).
	// A request with more samples runs alone, in batches of this size.
	MaxBatchSize int
	// Timeout is how long a batch, once a worker is free for it, waits
	// for more requests to join it (TensorFlow Serving's
	// batch_timeout_micros), when the server is under load (a batch
	// running or requests queued): a lone request at an idle server runs
	// at once. Default 1 ms (measured: see docs/serving.md); negative
	// waits for none (the batch is what queued while the workers ran).
	Timeout time.Duration
	// MaxQueued bounds the requests waiting for an engine (TensorFlow
	// Serving's max_enqueued_batches, counted in requests); past it a
	// request is refused at once with 503 and Retry-After. Default 1024.
	MaxQueued int
	// Workers is the number of batches that run at once (TensorFlow
	// Serving's num_batch_threads). Default 1 with batching: the engines
	// spread one batch over the cores themselves, and on 2 cores one
	// worker gave the most requests per second, the lowest p99 and a
	// third of the memory of two (docs/serving.md); without batching,
	// GOMAXPROCS, so that requests run side by side. The libtorch engine
	// runs one call at a time whatever this is.
	Workers int
}

// withDefaults returns o with its zero fields set to their defaults, or
// an error naming a field out of range.
func (o Options) withDefaults() (Options, error) {
	b := &o.Batching
	for _, f := range []struct {
		name string
		v    int64
	}{{"MaxBodyBytes", o.MaxBodyBytes}, {"MaxInFlightBytes", o.MaxInFlightBytes}, {"MaxInstances", int64(o.MaxInstances)}, {"RequestTimeout", int64(o.RequestTimeout)}, {"BodyTimeout", int64(o.BodyTimeout)}, {"Batching.MaxBatchSize", int64(b.MaxBatchSize)}, {"Batching.MaxQueued", int64(b.MaxQueued)}, {"Batching.Workers", int64(b.Workers)}} {
		if f.v < 0 {
			return o, fmt.Errorf("serving: %s is %d: give a positive value, or 0 for the default", f.name, f.v)
		}
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = 16 << 20
	}
	if o.MaxInFlightBytes == 0 {
		o.MaxInFlightBytes = 256 << 20
	}
	if o.MaxInstances == 0 {
		o.MaxInstances = 16384
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = 30 * time.Second
	}
	if o.BodyTimeout == 0 {
		o.BodyTimeout = 10 * time.Second
	}
	if o.ReloadInterval == 0 {
		o.ReloadInterval = 2 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if b.MaxBatchSize == 0 {
		b.MaxBatchSize = 32
	}
	if b.MaxQueued == 0 {
		b.MaxQueued = 1024
	}
	if b.Workers == 0 {
		b.Workers = 1
		if b.Disabled {
			b.Workers = runtime.GOMAXPROCS(0)
		}
	}
	switch {
	case b.Timeout == 0:
		b.Timeout = time.Millisecond
	case b.Timeout < 0:
		b.Timeout = 0 // no waiting (gather reads 0 as none)
	}
	return o, nil
}
