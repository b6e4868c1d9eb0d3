package serving

import (
	"context"
	"errors"
	"math"
	"net/http"
	"reflect"
	"testing"
	"time"

	_ "github.com/kerasgo/kerasgo/backends/gorgonia"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/prometheus/client_golang/prometheus"
)

func newTestBatcher(t *testing.T, opts BatchingOptions) (*batcher, *predictRequest) {
	t.Helper()
	m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{2}}, &layers.Dense{Units: 1}))
	b := newBatcher(m, opts, prometheus.NewHistogram(prometheus.HistogramOpts{Name: "b"}), prometheus.NewGauge(prometheus.GaugeOpts{Name: "q"}))
	req := &predictRequest{x: []keras.Array{{Shape: []int{1, 2}, Data: []float32{1, 2}}}, rows: 1, key: "(2,)"}
	return b, req
}

// With every worker busy, requests queue up to MaxQueued and the next one
// is refused at once with 503, never held in unbounded memory; the queued
// ones are answered when a worker frees.
func TestQueueIsBounded(t *testing.T) {
	// No workers yet: the requests queue.
	b, req := newTestBatcher(t, BatchingOptions{MaxBatchSize: 1, Timeout: time.Millisecond, MaxQueued: 3, Workers: 0})
	var tasks []*task
	var refused error
	for i := 0; i < 10 && refused == nil; i++ {
		tk := &task{ctx: context.Background(), req: req, done: make(chan taskResult, 1)}
		if refused = b.submit(tk); refused == nil {
			tasks = append(tasks, tk)
		}
	}
	if !errors.Is(refused, errQueueFull) || statusOf(refused) != http.StatusServiceUnavailable {
		t.Fatalf("after %d requests: %v (status %d), want the queue full (503)", len(tasks), refused, statusOf(refused))
	}
	if len(tasks) != 3 {
		t.Fatalf("%d requests were taken before the queue was full: want MaxQueued, 3", len(tasks))
	}
	b.running.Add(1)
	go b.runBatches()
	for i, tk := range tasks {
		if r := <-tk.done; r.err != nil || len(r.outs) != 1 || r.outs[0].Shape[0] != 1 {
			t.Fatalf("queued request %d: %+v", i, r)
		}
	}
	b.close()
	if err := b.submit(&task{ctx: context.Background(), req: req, done: make(chan taskResult, 1)}); err != errClosed {
		t.Fatalf("submit after close: %v, want errClosed", err)
	}
}

// A request whose time ran out while it queued is answered without
// running; the others in its batch are not disturbed.
func TestExpiredRequestsDoNotRun(t *testing.T) {
	b, req := newTestBatcher(t, BatchingOptions{MaxBatchSize: 8, Timeout: 20 * time.Millisecond, MaxQueued: 8, Workers: 1})
	defer b.close()
	expired, cancel := context.WithCancel(context.Background())
	cancel()
	dead := &task{ctx: expired, req: req, done: make(chan taskResult, 1)}
	live := &task{ctx: context.Background(), req: req, done: make(chan taskResult, 1)}
	keras.MustOK(b.submit(dead))
	keras.MustOK(b.submit(live))
	if r := <-dead.done; !errors.Is(r.err, context.Canceled) {
		t.Fatalf("the expired request: %+v", r)
	}
	if r := <-live.done; r.err != nil || r.outs[0].Shape[0] != 1 {
		t.Fatalf("the live request: %+v", r)
	}
}

// Requests queued while the workers are busy run as one engine batch
// (up to MaxBatchSize samples), and each gets back its own rows, equal to
// what the model predicts for them alone.
func TestQueuedRequestsRunAsOneBatch(t *testing.T) {
	m := keras.Must(keras.NewSequential(&layers.InputLayer{Shape: []int{2}}, &layers.Dense{Units: 3, Activation: "tanh"}))
	var sizes []float64 // observed by the collector's worker only
	b := newBatcher(m, BatchingOptions{MaxBatchSize: 32, Timeout: time.Millisecond, MaxQueued: 16, Workers: 0},
		prometheus.ObserverFunc(func(v float64) { sizes = append(sizes, v) }), prometheus.NewGauge(prometheus.GaugeOpts{Name: "q"}))
	var tasks []*task
	samples := 0
	for i := range 12 {
		rows := 1 + i%3
		data := make([]float32, 0, 2*rows)
		for r := range rows {
			data = append(data, float32(i), float32(r)-0.5)
		}
		req := &predictRequest{x: []keras.Array{{Shape: []int{rows, 2}, Data: data}}, rows: rows, key: "(2,)"}
		tk := &task{ctx: context.Background(), req: req, done: make(chan taskResult, 1)}
		keras.MustOK(b.submit(tk))
		tasks, samples = append(tasks, tk), samples+rows
	}
	// The worker starts with the 12 requests queued, as when it was busy.
	b.running.Add(1)
	go b.runBatches()
	for i, tk := range tasks {
		r := <-tk.done
		if r.err != nil {
			t.Fatalf("request %d: %v", i, r.err)
		}
		want := keras.Must(m.Predict(context.Background(), tk.req.x[0], keras.PredictOptions{}))
		if !reflect.DeepEqual(r.outs[0].Shape, want.Shape) || maxAbsDiff(r.outs[0].Data, want.Data) > 1e-6 {
			t.Fatalf("request %d: got %v %v, want its own rows %v %v", i, r.outs[0].Shape, r.outs[0].Data, want.Shape, want.Data)
		}
	}
	b.close()
	if len(sizes) != 1 || sizes[0] != float64(samples) {
		t.Fatalf("the 12 queued requests (%d samples) ran as batches of %v: want one batch of %d", samples, sizes, samples)
	}
}

func maxAbsDiff(a, b []float32) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

func TestPaddedSize(t *testing.T) {
	for _, c := range []struct{ rows, max, total, batch int }{
		{1, 32, 1, 1}, {2, 32, 2, 2}, {3, 32, 4, 4}, {17, 32, 32, 32}, {32, 32, 32, 32}, {33, 32, 64, 32}, {5, 6, 6, 6}, {70, 6, 72, 6},
	} {
		if total, batch := paddedSize(c.rows, c.max); total != c.total || batch != c.batch {
			t.Errorf("paddedSize(%d, %d) = %d, %d; want %d, %d", c.rows, c.max, total, batch, c.total, c.batch)
		}
	}
}
