package keras_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// pagedArrays is a keras.Dataset over arrays in memory, in batches of
// batch samples, that records what it is asked: which batches, how many
// calls at once at most, and how many epochs ended.
// deadlineOnDemand is a context whose deadline passes a while after arm
// is first called.
type deadlineOnDemand struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func (c *deadlineOnDemand) arm(d time.Duration) {
	c.once.Do(func() { time.AfterFunc(d, func() { close(c.done) }) })
}

func (c *deadlineOnDemand) Done() <-chan struct{} { return c.done }

func (c *deadlineOnDemand) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

type pagedArrays struct {
	x, y     keras.Array
	batch    int
	delay    time.Duration // per Batch call
	mu       sync.Mutex
	asked    []int
	inFlight atomic.Int32
	most     atomic.Int32
	epochs   atomic.Int32
	fail     func(i int) (keras.Batch, error) // overrides batch i when it returns an error or a batch
}

func (p *pagedArrays) Len() int { return (p.x.Shape[0] + p.batch - 1) / p.batch }

func (p *pagedArrays) Batch(ctx context.Context, i int) (keras.Batch, error) {
	n := p.inFlight.Add(1)
	defer p.inFlight.Add(-1)
	for {
		m := p.most.Load()
		if n <= m || p.most.CompareAndSwap(m, n) {
			break
		}
	}
	p.mu.Lock()
	p.asked = append(p.asked, i)
	p.mu.Unlock()
	if p.delay > 0 {
		select {
		case <-time.After(p.delay):
		case <-ctx.Done():
			return keras.Batch{}, ctx.Err()
		}
	}
	if p.fail != nil {
		if b, err := p.fail(i); err != nil || b.X != nil {
			return b, err
		}
	}
	return sliceBatch(p.x, p.y, i*p.batch, min((i+1)*p.batch, p.x.Shape[0])), nil
}

func (p *pagedArrays) OnEpochEnd() { p.epochs.Add(1) }

// sliceBatch copies the samples [from, to) of x and y into a batch.
func sliceBatch(x, y keras.Array, from, to int) keras.Batch {
	rows := func(a keras.Array) keras.Array {
		per := len(a.Data) / a.Shape[0]
		shape := append([]int{to - from}, a.Shape[1:]...)
		return keras.Array{Shape: shape, Data: append([]float32(nil), a.Data[from*per:to*per]...)}
	}
	return keras.Batch{X: rows(x), Y: rows(y)}
}

// generate yields the batches of x and y in order, afresh each time it is
// ranged over.
func generate(x, y keras.Array, batch int) iter.Seq2[keras.Batch, error] {
	return func(yield func(keras.Batch, error) bool) {
		for from := 0; from < x.Shape[0]; from += batch {
			if !yield(sliceBatch(x, y, from, min(from+batch, x.Shape[0])), nil) {
				return
			}
		}
	}
}

// Fit, Evaluate and Predict on a Dataset or a generator that yields the
// batches Fit would cut from the arrays (no shuffling) give the arrays'
// results exactly, on every engine, however many goroutines load the
// batches: batches reach the engine in their order.
func TestBatchesGiveTheArraysResults(t *testing.T) {
	x, y := smallData(52) // 4 batches of 16, the last of 4
	ctx := context.Background()
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		ref := compiledMLP(t, be, &optimizers.Adam{})
		hist, err := ref.Fit(ctx, x, y, keras.FitOptions{Epochs: 3, BatchSize: 16, NoShuffle: true, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ref.GetWeights()
		wantEval, err := ref.Evaluate(ctx, x, y, keras.EvaluateOptions{BatchSize: 16, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		wantPred, err := ref.Predict(ctx, x, keras.PredictOptions{BatchSize: 16})
		if err != nil {
			t.Fatal(err)
		}
		sources := map[string]func() keras.Batches{
			"Dataset, 1 worker": func() keras.Batches { return keras.Batches{Dataset: &pagedArrays{x: x, y: y, batch: 16}} },
			"Dataset, 3 workers": func() keras.Batches {
				return keras.Batches{Dataset: &pagedArrays{x: x, y: y, batch: 16}, Workers: 3, MaxQueueSize: 2}
			},
			"generator": func() keras.Batches { return keras.Batches{Generator: generate(x, y, 16)} },
		}
		for name, source := range sources {
			m := compiledMLP(t, be, &optimizers.Adam{})
			h, err := m.Fit(ctx, source(), nil, keras.FitOptions{Epochs: 3, NoShuffle: true, Verbose: keras.Silent})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, _ := m.GetWeights()
			for i := range want {
				if d := maxDiff(want[i], got[i]); d > 1e-6 {
					t.Errorf("%s: weight %d differs from training on the arrays by %g", name, i, d)
				}
			}
			for i, l := range hist.Logs["loss"] {
				if d := h.Logs["loss"][i] - l; d > 1e-6 || d < -1e-6 {
					t.Errorf("%s: epoch %d loss %v, on the arrays %v", name, i+1, h.Logs["loss"][i], l)
				}
			}
			logs, err := m.Evaluate(ctx, source(), nil, keras.EvaluateOptions{Verbose: keras.Silent})
			if err != nil {
				t.Fatalf("%s: Evaluate: %v", name, err)
			}
			for _, l := range wantEval {
				if v, _ := logs.Get(l.Name); v-l.Value > 1e-6 || l.Value-v > 1e-6 {
					t.Errorf("%s: Evaluate's %s %v, on the arrays %v", name, l.Name, v, l.Value)
				}
			}
			pred, err := m.Predict(ctx, source(), keras.PredictOptions{})
			if err != nil {
				t.Fatalf("%s: Predict: %v", name, err)
			}
			if fmt.Sprint(pred.Shape) != fmt.Sprint(wantPred.Shape) || maxDiff(pred.Data, wantPred.Data) > 1e-6 {
				t.Errorf("%s: Predict gave shape %v (max diff %g), on the arrays %v", name, pred.Shape, maxDiff(pred.Data, wantPred.Data), wantPred.Shape)
			}
		}
	})
}

// A Dataset's batches are shuffled each epoch from the seed: every batch
// once per epoch, the same order for the same seed, another for another;
// OnEpochEnd is called once per epoch; the loaders run Workers calls at
// once at most (and more than one when there are several).
func TestConcurrentDatasetLoadingIsShuffledReproducibly(t *testing.T) {
	x, y := smallData(64)
	ctx := context.Background()
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		run := func(seed int64, workers int) (*pagedArrays, [][]float32) {
			p := &pagedArrays{x: x, y: y, batch: 8, delay: 5 * time.Millisecond}
			m := compiledMLP(t, be, &optimizers.SGD{})
			if _, err := m.Fit(ctx, keras.Batches{Dataset: p, Workers: workers}, nil, keras.FitOptions{Epochs: 3, Seed: seed, Verbose: keras.Silent}); err != nil {
				t.Fatal(err)
			}
			w, _ := m.GetWeights()
			return p, w
		}
		p1, w1 := run(5, 4)
		p2, w2 := run(5, 1)
		_, w3 := run(6, 4)
		// Batch 0 is loaded once more, first, to build and check.
		if got := p1.asked[1:]; len(got) != 24 {
			t.Fatalf("asked for %d batches in 3 epochs of 8, want 24: %v", len(got), got)
		}
		for e := 0; e < 3; e++ {
			seen := map[int]bool{}
			for _, i := range p1.asked[1+8*e : 9+8*e] {
				seen[i] = true
			}
			if len(seen) != 8 {
				// With 4 workers calls may start out of order, but an
				// epoch's loads are all issued before the next epoch's.
				t.Errorf("epoch %d loaded the batches %v, want each of the 8 once", e+1, p1.asked[1+8*e:9+8*e])
			}
		}
		if fmt.Sprint(p1.asked[1:9]) == "[0 1 2 3 4 5 6 7]" && fmt.Sprint(p1.asked[9:17]) == "[0 1 2 3 4 5 6 7]" {
			t.Errorf("the batches were not shuffled: %v", p1.asked)
		}
		for i := range w1 {
			if d := maxDiff(w1[i], w2[i]); d > 1e-6 {
				t.Errorf("weight %d: the same seed trained differently with 4 loaders and with 1 (%g)", i, d)
			}
		}
		same := true
		for i := range w1 {
			same = same && maxDiff(w1[i], w3[i]) == 0
		}
		if same {
			t.Error("seeds 5 and 6 trained the same weights: the batch order does not follow the seed")
		}
		if got := p1.epochs.Load(); got != 3 {
			t.Errorf("OnEpochEnd was called %d times in 3 epochs", got)
		}
		if most := p1.most.Load(); most < 2 || most > 4 {
			t.Errorf("at most %d Batch calls ran at once with 4 workers: want 2 to 4", most)
		}
		if most := p2.most.Load(); most != 1 {
			t.Errorf("%d Batch calls ran at once with 1 worker", most)
		}
	})
}

// A generator with StepsPerEpoch feeds epochs from one pass in turn; a
// pass that ends early ends its epoch with Keras's warning, and the next
// epoch starts a new pass.
func TestGeneratorStepsPerEpoch(t *testing.T) {
	x, y := smallData(40) // 5 batches of 8
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) { generatorStepsPerEpoch(t, be, x, y) })
}

func generatorStepsPerEpoch(t *testing.T, be backend.Backend, x, y keras.Array) {
	var passes atomic.Int32
	gen := func(yield func(keras.Batch, error) bool) {
		passes.Add(1)
		generate(x, y, 8)(yield)
	}
	var out bytes.Buffer
	m := compiledMLP(t, be, &optimizers.SGD{})
	hist, err := m.Fit(context.Background(), keras.Batches{Generator: gen}, nil, keras.FitOptions{Epochs: 4, StepsPerEpoch: 2, Verbose: keras.OneLinePerEpoch, Output: &out})
	if err != nil {
		t.Fatal(err)
	}
	// Epochs take batches 0-1, 2-3, 4 (and the pass ends), then 0-1.
	lines := strings.Split(out.String(), "\n")
	var steps []string
	for _, l := range lines {
		if f := strings.Fields(l); len(f) > 0 && strings.Contains(f[0], "/") && !strings.HasPrefix(l, "Epoch") {
			steps = append(steps, f[0])
		}
	}
	if fmt.Sprint(steps) != "[2/2 2/2 1/1 2/2]" {
		t.Errorf("epochs took %v batches, want [2/2 2/2 1/1 2/2]:\n%s", steps, out.String())
	}
	if !strings.Contains(out.String(), "Your input ran out of data") {
		t.Errorf("no warning when the pass ran out:\n%s", out.String())
	}
	if len(hist.Epochs) != 4 || passes.Load() != 2 {
		t.Errorf("%d epochs from %d passes, want 4 from 2", len(hist.Epochs), passes.Load())
	}
}

// What a source does wrong is an error that names the batch, and the run
// stops without waiting for the rest.
func TestBatchesErrors(t *testing.T) {
	backendtest.ForEachEngine(t, batchesErrors)
}

func batchesErrors(t *testing.T, be backend.Backend) {
	x, y := smallData(64)
	ctx := context.Background()
	fit := func(b keras.Batches, opts keras.FitOptions) error {
		opts.Epochs, opts.Verbose = max(opts.Epochs, 1), keras.Silent
		_, err := compiledMLP(t, be, &optimizers.SGD{}).Fit(ctx, b, nil, opts)
		return err
	}
	failing := func(f func(i int) (keras.Batch, error)) keras.Batches {
		return keras.Batches{Dataset: &pagedArrays{x: x, y: y, batch: 8, fail: f}, Workers: 2}
	}
	boom := errors.New("disk on fire")
	wantErr(t, fit(failing(func(i int) (keras.Batch, error) {
		if i == 5 {
			return keras.Batch{}, boom
		}
		return keras.Batch{}, nil
	}), keras.FitOptions{NoShuffle: true}), "loading batch 5", "disk on fire")
	wantErr(t, fit(failing(func(i int) (keras.Batch, error) {
		if i == 3 {
			panic("index out of range")
		}
		return keras.Batch{}, nil
	}), keras.FitOptions{}), "Batch(3) panicked", "index out of range")
	wantErr(t, fit(failing(func(i int) (keras.Batch, error) {
		if i == 4 {
			b := sliceBatch(x, y, 0, 8)
			b.X = keras.Array{Shape: []int{8, 5}, Data: make([]float32, 40)}
			return b, nil
		}
		return keras.Batch{}, nil
	}), keras.FitOptions{NoShuffle: true}), "batch 4", "expected shape", "(8, 5)")
	wantErr(t, fit(failing(func(i int) (keras.Batch, error) {
		if i == 2 {
			b := sliceBatch(x, y, 0, 8)
			b.Y = keras.Array{Shape: []int{8, 1}, Data: b.Y.(keras.Array).Data}
			return b, nil
		}
		return keras.Batch{}, nil
	}), keras.FitOptions{NoShuffle: true}), "batch 2", "Y array 0 has shape (8, 1), but batch 0's had (8,)")
	wantErr(t, fit(failing(func(i int) (keras.Batch, error) {
		if i == 1 {
			b := sliceBatch(x, y, 0, 8)
			b.Y = nil
			return b, nil
		}
		return keras.Batch{}, nil
	}), keras.FitOptions{NoShuffle: true}), "batch 1", "no Y")
	wantErr(t, fit(keras.Batches{Generator: func(yield func(keras.Batch, error) bool) {
		generate(x, y, 8)(func(b keras.Batch, err error) bool { return yield(b, err) })
		yield(keras.Batch{}, boom)
	}}, keras.FitOptions{}), "loading batch 8", "disk on fire")
	wantErr(t, fit(keras.Batches{Generator: func(yield func(keras.Batch, error) bool) {}}, keras.FitOptions{}), "yielded no batches")

	// A one-shot generator has nothing for a second epoch.
	once := sync.Once{}
	oneShot := func(yield func(keras.Batch, error) bool) { once.Do(func() { generate(x, y, 8)(yield) }) }
	wantErr(t, fit(keras.Batches{Generator: oneShot}, keras.FitOptions{Epochs: 2}), "epoch 2 got no batches")

	// A slow source: the context's deadline names the step waited for. The
	// deadline starts when the slow batch is asked for, so a loaded
	// machine's slow compile cannot reach it first.
	slow := &pagedArrays{x: x, y: y, batch: 8, delay: time.Hour}
	dctx := &deadlineOnDemand{Context: ctx, done: make(chan struct{})}
	_, err := compiledMLP(t, be, &optimizers.SGD{}).Fit(dctx, keras.Batches{Dataset: &pagedArrays{x: x, y: y, batch: 8, fail: func(i int) (keras.Batch, error) {
		if i == 3 {
			dctx.arm(50 * time.Millisecond)
			return slow.Batch(dctx, i)
		}
		return keras.Batch{}, nil
	}}}, nil, keras.FitOptions{Epochs: 1, NoShuffle: true, Verbose: keras.Silent})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a source slower than the deadline: %v, want context.DeadlineExceeded", err)
	}
	wantErr(t, err, "step 4")

	// No generator is left running when Fit returns, here with an error
	// in the first epoch before any validation read its generator.
	var running atomic.Int32
	tracked := func(yield func(keras.Batch, error) bool) {
		running.Add(1)
		defer running.Add(-1)
		for {
			if !yield(sliceBatch(x, y, 0, 8), nil) {
				return
			}
		}
	}
	err = fit(failing(func(i int) (keras.Batch, error) {
		if i == 2 {
			return keras.Batch{}, boom
		}
		return keras.Batch{}, nil
	}), keras.FitOptions{NoShuffle: true, ValidationData: &keras.Data{X: keras.Batches{Generator: tracked, MaxQueueSize: 2}}})
	wantErr(t, err, "loading batch 2")
	if n := running.Load(); n != 0 {
		t.Errorf("%d generators still running after Fit returned", n)
	}

	ds := keras.Batches{Dataset: &pagedArrays{x: x, y: y, batch: 8}}
	m := compiledMLP(t, be, &optimizers.SGD{})
	_, err = m.Fit(ctx, ds, y, keras.FitOptions{Epochs: 1})
	wantErr(t, err, "got y beside keras.Batches")
	wantErr(t, fit(ds, keras.FitOptions{BatchSize: 8}), "BatchSize does not go with keras.Batches")
	wantErr(t, fit(ds, keras.FitOptions{ValidationSplit: 0.2}), "ValidationSplit needs arrays", "ValidationData")
	wantErr(t, fit(keras.Batches{}, keras.FitOptions{}), "neither a Dataset nor a Generator")
	wantErr(t, fit(keras.Batches{Dataset: endless{}}, keras.FitOptions{}), "no end", "StepsPerEpoch")
	_, err = m.Fit(ctx, x, ds, keras.FitOptions{Epochs: 1})
	wantErr(t, err, "give it as x")
	_, err = m.Evaluate(ctx, keras.Batches{Dataset: endless{}}, nil, keras.EvaluateOptions{Verbose: keras.Silent})
	wantErr(t, err, "no end")
}

// endless is a Dataset without end: batch i of a fixed pattern.
type endless struct{}

func (endless) Len() int { return -1 }
func (endless) Batch(_ context.Context, i int) (keras.Batch, error) {
	x, y := smallData(8)
	return keras.Batch{X: x, Y: y}, nil
}

// An endless Dataset trains with StepsPerEpoch; ValidationData may be
// Batches too; a model not built yet is built from the first batch.
func TestDatasetBuildsAndValidates(t *testing.T) {
	x, y := smallData(32)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m, err := keras.NewSequential(&layers.Dense{Units: 16, Activation: "tanh"}, &layers.Dense{Units: 3, Activation: "softmax"})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy"), Backend: be.Name()}); err != nil {
			t.Fatal(err)
		}
		val := &keras.Data{X: keras.Batches{Generator: generate(x, y, 10)}}
		hist, err := m.Fit(context.Background(), keras.Batches{Dataset: endless{}}, nil, keras.FitOptions{Epochs: 2, StepsPerEpoch: 3, ValidationData: val, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		vl := hist.Logs["val_loss"]
		if len(vl) != 2 {
			t.Fatalf("val_loss logged %d times in 2 epochs: %v", len(vl), hist.Logs)
		}
		want, err := m.Evaluate(context.Background(), x, y, keras.EvaluateOptions{BatchSize: 10, Verbose: keras.Silent})
		if err != nil {
			t.Fatal(err)
		}
		if l, _ := want.Get("loss"); l-vl[1] > 1e-6 || vl[1]-l > 1e-6 {
			t.Errorf("val_loss from a generator %v, Evaluate on the arrays %v", vl[1], l)
		}
	})
}

// A custom training and test step read Batches as they read arrays:
// trained and validated from a generator, the weights and logs equal
// those from the same arrays.
func TestCustomStepFromBatches(t *testing.T) {
	x, y := smallData(48)
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		run := func(fromBatches bool) ([][]float32, *keras.History) {
			m := smallMLP(t, true)
			if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy"),
				Backend: be.Name(), Seed: 5, TrainStep: builtinLikeStep, TestStep: builtinLikeTestStep}); err != nil {
				t.Fatal(err)
			}
			opts := keras.FitOptions{Epochs: 2, NoShuffle: true, Verbose: keras.Silent}
			var h *keras.History
			var err error
			if fromBatches {
				opts.ValidationData = &keras.Data{X: keras.Batches{Generator: generate(x, y, 16)}}
				h, err = m.Fit(context.Background(), keras.Batches{Generator: generate(x, y, 16)}, nil, opts)
			} else {
				opts.BatchSize, opts.ValidationData = 16, &keras.Data{X: x, Y: y}
				h, err = m.Fit(context.Background(), x, y, opts)
			}
			if err != nil {
				t.Fatal(err)
			}
			return mustWeights(t, m), h
		}
		wantW, want := run(false)
		gotW, got := run(true)
		for i := range wantW {
			if d := maxDiff(gotW[i], wantW[i]); d > 1e-6 {
				t.Errorf("weight %d: from Batches differs from arrays by %g", i, d)
			}
		}
		for _, name := range []string{"loss", "val_loss", "val_accuracy"} {
			if fmt.Sprintf("%.5f", got.Logs[name]) != fmt.Sprintf("%.5f", want.Logs[name]) {
				t.Errorf("%s: from Batches %v, from arrays %v", name, got.Logs[name], want.Logs[name])
			}
		}
	})
}
