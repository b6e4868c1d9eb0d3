package serving

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus metrics, on a registry of its own
// (so that several servers in one process, or a program's own metrics,
// do not collide), with Go's and the process's collectors
// (process_resident_memory_bytes among them).
type metrics struct {
	registry  *prometheus.Registry
	requests  *prometheus.CounterVec   // by model, API and HTTP status code
	latency   *prometheus.HistogramVec // :predict requests, arrival to answer, by model
	batchSize *prometheus.HistogramVec // samples per engine batch (before padding), by model
	queued    *prometheus.GaugeVec     // requests waiting for an engine, by model
	reloads   *prometheus.CounterVec   // by model and result (loaded, failed)
	version   *prometheus.GaugeVec     // the version serving, by model
	// inFlightBytes and waitingBytes are the memory the requests in
	// flight are counted for, and that of those waiting for admission.
	inFlightBytes prometheus.Gauge
	waitingBytes  prometheus.Gauge
}

func newMetrics(maxBatch int) *metrics {
	var sizes []float64
	for s := 1; s < maxBatch; s *= 2 {
		sizes = append(sizes, float64(s))
	}
	sizes = append(sizes, float64(maxBatch))
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kerasgo_serving_requests_total",
			Help: "Requests answered, by model, API (status, metadata, predict) and HTTP status code.",
		}, []string{"model", "api", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kerasgo_serving_predict_duration_seconds",
			Help:    "Time from a predict request's arrival to its answer, queueing included.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16), // 0.5 ms to 16 s
		}, []string{"model"}),
		batchSize: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "kerasgo_serving_batch_size",
			Help:    "Samples per engine batch, before padding to an allowed batch size.",
			Buckets: sizes,
		}, []string{"model"}),
		queued: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kerasgo_serving_queued_requests",
			Help: "Predict requests waiting for an engine.",
		}, []string{"model"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "kerasgo_serving_model_loads_total",
			Help: "Loads of a model file (the first and each reload), by result: loaded, or failed (the version serving stays).",
		}, []string{"model", "result"}),
		version: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "kerasgo_serving_model_version",
			Help: "The version of each model serving (1, then one more for each reload).",
		}, []string{"model"}),
		inFlightBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kerasgo_serving_inflight_bytes",
			Help: "Memory the requests in flight are counted for (at most Options.MaxInFlightBytes).",
		}),
		waitingBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "kerasgo_serving_waiting_bytes",
			Help: "Memory of the requests waiting for room under Options.MaxInFlightBytes.",
		}),
	}
	m.registry.MustRegister(m.requests, m.latency, m.batchSize, m.queued, m.reloads, m.version, m.inFlightBytes, m.waitingBytes,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}
