package keras_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// A Model is safe for concurrent use (see the package doc). These tests
// run 16 goroutines predicting on one model, alone and beside a Fit and a
// goroutine saving the model every second; `make test` also runs them
// with -race on the pure-Go engine. They run 10 s each (2 s with -short).

const predictors = 16

func concurrencyDuration() time.Duration {
	if testing.Short() {
		return 2 * time.Second
	}
	return 10 * time.Second
}

// concurrencyModel is Dense(16, tanh) then Dense(3), which
// hostForward computes on the host.
func concurrencyModel(t *testing.T, engine string) *keras.Model {
	t.Helper()
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 16, Activation: "tanh"}, &layers.Dense{Units: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{LearningRate: 0.05}, Loss: keras.Loss("mse"), Backend: engine, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	return m
}

func concurrencyData(n int) (keras.Array, keras.Array) {
	x := keras.Array{Shape: []int{n, 6}, Data: make([]float32, n*6)}
	y := keras.Array{Shape: []int{n, 3}, Data: make([]float32, n*3)}
	for i := range x.Data {
		x.Data[i] = float32(math.Sin(float64(i) * 0.7))
	}
	for i := range y.Data {
		y.Data[i] = float32(math.Cos(float64(i) * 1.3))
	}
	return x, y
}

// hostForward computes concurrencyModel's output for x with weights w in
// float64.
func hostForward(w [][]float32, x keras.Array) []float64 {
	k1, b1, k2, b2 := w[0], w[1], w[2], w[3]
	n := x.Shape[0]
	out := make([]float64, 0, n*3)
	h := make([]float64, 16)
	for r := 0; r < n; r++ {
		for j := range 16 {
			s := float64(b1[j])
			for i := range 6 {
				s += float64(x.Data[r*6+i]) * float64(k1[i*16+j])
			}
			h[j] = math.Tanh(s)
		}
		for j := range 3 {
			s := float64(b2[j])
			for i := range 16 {
				s += h[i] * float64(k2[i*3+j])
			}
			out = append(out, s)
		}
	}
	return out
}

func distance(p []float32, ref []float64) float64 {
	d := 0.0
	for i := range p {
		d = math.Max(d, math.Abs(float64(p[i])-ref[i]))
	}
	return d
}

// predictLoop runs f on predictors goroutines until ctx ends and returns
// how many calls were made and the first error.
func predictLoop(ctx context.Context, f func() error) (int64, error) {
	var calls atomic.Int64
	var first error
	var once sync.Once
	var wg sync.WaitGroup
	for range predictors {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				if err := f(); err != nil {
					once.Do(func() { first = err })
					return
				}
				calls.Add(1)
			}
		}()
	}
	wg.Wait()
	return calls.Load(), first
}

// 16 goroutines predicting on one model at once each get the prediction
// one goroutine gets.
func TestConcurrentPredict(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := concurrencyModel(t, be.Name())
		x, _ := concurrencyData(8)
		want := mustPredict(t, m, x)
		ctx, cancel := context.WithTimeout(context.Background(), concurrencyDuration())
		defer cancel()
		calls, err := predictLoop(ctx, func() error {
			p, err := m.Predict(context.Background(), x, keras.PredictOptions{})
			if err != nil {
				return err
			}
			if d := maxDiff(p.Data, want); d > 1e-6 {
				return fmt.Errorf("a concurrent prediction differs from the single-goroutine one by %g", d)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d predictions by %d goroutines", calls, predictors)
	})
}

// boundaryRecorder records the model's weights after every training step
// (from inside Fit, through GetWeights), numbering the step boundaries.
type boundaryRecorder struct {
	callbacks.Base
	mu      sync.Mutex
	weights [][][]float32 // weights[k]: after k steps
	last    atomic.Int64  // index of the newest record
	err     error
}

func (r *boundaryRecorder) OnTrainBatchEnd(int, callbacks.Logs) {
	w, err := r.Model().GetWeights()
	r.mu.Lock()
	if err != nil && r.err == nil {
		r.err = err
	}
	r.weights = append(r.weights, w)
	r.last.Store(int64(len(r.weights) - 1))
	r.mu.Unlock()
	time.Sleep(time.Millisecond) // bounds the number of boundaries to check
}

func (r *boundaryRecorder) record(k int) [][]float32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if k >= len(r.weights) {
		return nil
	}
	return r.weights[k]
}

// observed is one concurrent prediction and the newest step boundary
// recorded before and after it.
type observed struct {
	before, after int64
	p             []float32
}

// While Fit trains the model and another goroutine saves it every second,
// 16 goroutines predicting on it each get the prediction of the weights at
// some step boundary (never half an update), and every saved file loads
// with the weights of a step boundary.
func TestConcurrentPredictDuringFitAndSave(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m := concurrencyModel(t, be.Name())
		x, _ := concurrencyData(8)
		trainX, trainY := concurrencyData(64)
		rec := &boundaryRecorder{}
		rec.weights = [][][]float32{mustWeights(t, m)}
		ctx, cancel := context.WithTimeout(context.Background(), concurrencyDuration())
		defer cancel()

		var wg sync.WaitGroup
		var fitErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			defer cancel() // predictions stop when Fit does
			_, fitErr = m.Fit(ctx, trainX, trainY, keras.FitOptions{Epochs: 1 << 30, BatchSize: 16, Verbose: keras.Silent, Seed: 2, Callbacks: []callbacks.Callback{rec}})
		}()
		dir := t.TempDir()
		var saved []string
		var saveErr error
		go func() {
			defer wg.Done()
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				path := filepath.Join(dir, fmt.Sprintf("m%d.keras", len(saved)))
				if err := m.Save(path); err != nil {
					saveErr = err
					return
				}
				saved = append(saved, path)
			}
		}()
		var mu sync.Mutex
		var seen []observed
		calls, err := predictLoop(ctx, func() error {
			before := rec.last.Load()
			p, err := m.Predict(context.Background(), x, keras.PredictOptions{})
			if err != nil {
				return err
			}
			o := observed{before: before, after: rec.last.Load(), p: p.Data}
			mu.Lock()
			seen = append(seen, o)
			mu.Unlock()
			return nil
		})
		wg.Wait()
		if err != nil {
			t.Fatal(err)
		}
		if fitErr != nil && !errors.Is(fitErr, context.DeadlineExceeded) && !errors.Is(fitErr, context.Canceled) {
			t.Fatalf("Fit: %v", fitErr)
		}
		if saveErr != nil {
			t.Fatalf("Save during Fit: %v", saveErr)
		}
		if rec.err != nil {
			t.Fatalf("GetWeights from a callback: %v", rec.err)
		}
		steps := len(rec.weights) - 1
		t.Logf("%d predictions by %d goroutines beside %d training steps and %d saves", calls, predictors, steps, len(saved))
		if steps < 10 || len(seen) < 10 {
			t.Fatalf("too little happened to test (%d steps, %d predictions)", steps, len(seen))
		}

		const tol = 1e-4 // float32 on the engine against float64 here
		refs := make([][]float64, len(rec.weights))
		for k, w := range rec.weights {
			refs[k] = hostForward(w, x)
		}
		// The check has power: consecutive steps, and half an update
		// (the first layer of one step with the second of the next), are
		// told apart.
		distinct, mixed := 0, 0
		for k := 0; k+1 < len(refs); k++ {
			if distance(toFloat32(refs[k+1]), refs[k]) > 10*tol {
				distinct++
			}
			half := append(append([][]float32(nil), rec.weights[k][:2]...), rec.weights[k+1][2:]...)
			hp := toFloat32(hostForward(half, x))
			if distance(hp, refs[k]) > tol && distance(hp, refs[k+1]) > tol {
				mixed++
			}
		}
		if distinct < steps/2 || mixed < steps/2 {
			t.Fatalf("the check cannot tell steps apart (%d of %d consecutive steps distinct, %d half updates detectable)", distinct, steps, mixed)
		}
		for _, o := range seen {
			best := math.Inf(1)
			for k := o.before; k <= o.after+1 && int(k) < len(refs); k++ {
				best = math.Min(best, distance(o.p, refs[k]))
			}
			if best > tol {
				t.Fatalf("a prediction made between boundaries %d and %d is %g from the predictions of those steps' weights: it saw half an update", o.before, o.after+1, best)
			}
		}
		for _, path := range saved {
			loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
			if err != nil {
				t.Fatalf("a file saved during Fit does not load: %v", err)
			}
			w := mustWeights(t, loaded)
			found := false
			for k := range rec.weights {
				if sameWeights(w, rec.record(k)) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s holds weights of no step boundary", filepath.Base(path))
			}
		}
	})
}

func toFloat32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// One Fit at a time: a second Fit, or a Compile, while Fit runs is an
// error that says so, not a corrupted model.
func TestFitWhileFitting(t *testing.T) {
	m := concurrencyModel(t, "")
	x, y := concurrencyData(64)
	started := make(chan struct{})
	release := make(chan struct{})
	cb := &pauseAtFirstBatch{started: started, release: release}
	done := make(chan error)
	go func() {
		_, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: 16, Verbose: keras.Silent, Callbacks: []callbacks.Callback{cb}})
		done <- err
	}()
	<-started
	_, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, Verbose: keras.Silent})
	wantErr(t, err, "already training")
	err = m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse")})
	wantErr(t, err, "is training", "after Fit returns")
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// pauseAtFirstBatch holds Fit after its first step until release closes.
type pauseAtFirstBatch struct {
	callbacks.Base
	started, release chan struct{}
}

func (p *pauseAtFirstBatch) OnTrainBatchEnd(batch int, _ callbacks.Logs) {
	if batch == 0 {
		close(p.started)
		<-p.release
	}
}

// Save beside Fit with Adam: the libtorch engine calls Adam's Update every
// step, and Save wrote Keras's defaults into Adam's settings (Serialize
// resolved them again), a data race under -race (issue 39). Save now only
// reads an optimizer that Compile resolved.
func TestConcurrentSaveDuringFitWithAdam(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{6}}, &layers.Dense{Units: 8, Activation: "tanh"}, &layers.Dense{Units: 3})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("mse"), Backend: be.Name(), Seed: 4}); err != nil {
			t.Fatal(err)
		}
		x, y := concurrencyData(64)
		done := make(chan error, 1)
		go func() {
			_, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 20, BatchSize: 8, Verbose: keras.Silent})
			done <- err
		}()
		dir := t.TempDir()
		for i := 0; ; i++ {
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					t.Log("Fit ended before the first Save")
				}
				return
			default:
			}
			if err := m.Save(filepath.Join(dir, fmt.Sprintf("m%d.keras", i%2))); err != nil {
				t.Fatal(err)
			}
		}
	})
}
