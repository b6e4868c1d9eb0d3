package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/trace"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kerasgo/kerasgo/examples/transformer"
	"github.com/kerasgo/kerasgo/internal/models"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/metrics"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// Data returns n random 28x28x1 images and labels: step time does not
// depend on the values, so benchmarks need no dataset.
func Data(n int, seed uint64) (keras.Array, keras.Array) {
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float32, n*28*28)
	for i := range x {
		x[i] = r.Float32()
	}
	y := make([]float32, n)
	for i := range y {
		y[i] = float32(r.IntN(10))
	}
	return keras.Array{Shape: []int{n, 28, 28, 1}, Data: x}, keras.Array{Shape: []int{n}, Data: y}
}

// TokenData returns n random sequences of Keras's transformer example
// (200 token ids below 20,000) and binary labels.
func TokenData(n int, seed uint64) (keras.Array, keras.Array) {
	c := transformer.KerasExample
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float32, n*c.MaxLen)
	for i := range x {
		x[i] = float32(r.IntN(c.VocabSize))
	}
	y := make([]float32, n)
	for i := range y {
		y[i] = float32(r.IntN(c.Classes))
	}
	return keras.Array{Shape: []int{n, c.MaxLen}, Data: x}, keras.Array{Shape: []int{n}, Data: y}
}

// The LSTM classifier: LSTM(64) over sequences of 100 steps of 8
// features, then Dense(10, softmax).
const (
	lstmSteps    = 100
	lstmFeatures = 8
)

// SequenceData returns n random sequences for the LSTM classifier (100
// steps of 8 features in [0, 1)) and labels of 10 classes.
func SequenceData(n int, seed uint64) (keras.Array, keras.Array) {
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float32, n*lstmSteps*lstmFeatures)
	for i := range x {
		x[i] = r.Float32()
	}
	y := make([]float32, n)
	for i := range y {
		y[i] = float32(r.IntN(10))
	}
	return keras.Array{Shape: []int{n, lstmSteps, lstmFeatures}, Data: x}, keras.Array{Shape: []int{n}, Data: y}
}

// SeedData returns n random samples for one of the 2016 networks
// (models.Seed): uniform inputs of its shape (word ids for the language
// models) and random class labels (one per step for the language models).
func SeedData(model string, n int, seed uint64) (keras.Array, keras.Array) {
	r := rand.New(rand.NewPCG(seed, 1))
	random := func(shape []int, classes int) keras.Array {
		size := 1
		for _, d := range shape {
			size *= d
		}
		a := keras.Array{Shape: shape, Data: make([]float32, size)}
		for i := range a.Data {
			if classes > 0 {
				a.Data[i] = float32(r.IntN(classes))
			} else {
				a.Data[i] = r.Float32()
			}
		}
		return a
	}
	switch model {
	case "fcn5", "fcn8":
		return random([]int{n, models.FCNFeatures}, 0), random([]int{n}, models.FCNFeatures)
	case "lstm32", "lstm64":
		steps := 32
		if model == "lstm64" {
			steps = 64
		}
		return random([]int{n, steps}, models.LSTMVocabulary), random([]int{n, steps}, models.LSTMVocabulary)
	}
	return random([]int{n, 224, 224, 3}, 0), random([]int{n}, models.ImageNetClasses)
}

// isSeed reports whether model is one of the 2016 networks.
func isSeed(model string) bool { return slices.Contains(models.SeedNames, model) }

// dataFor returns the random data the named model trains on.
func dataFor(model string, n int, seed uint64) (keras.Array, keras.Array) {
	switch {
	case model == "transformer":
		return TokenData(n, seed)
	case model == "lstm":
		return SequenceData(n, seed)
	case isSeed(model):
		return SeedData(model, n, seed)
	}
	return Data(n, seed)
}

// Compiled returns the named model compiled as the demo compiles it:
// "mlp", "cnn", "resnet" (internal/models), "transformer" (Keras's
// text classification example, examples/transformer) or "lstm" (an
// LSTM(64) classifier over 100 steps of 8 features), with Adam and the
// accuracy; or one of the 2016 networks (models.Seed: "fcn5", "fcn8",
// "alexnet", "resnet50", "lstm32", "lstm64") with the 2016 benchmark's
// plain SGD (learning rate 0.01) and the loss alone.
func Compiled(model, engine string) (*keras.Model, error) {
	return CompiledWithPolicy(model, engine, "")
}

// CompiledWithPolicy is Compiled with every layer but the model's last
// (the logits, which Keras's mixed-precision guide keeps float32), and
// every layer they hold, under the Keras dtype policy ("mixed_bfloat16";
// "" or "float32" for none).
func CompiledWithPolicy(model, engine, policy string) (*keras.Model, error) {
	var m *keras.Model
	var err error
	switch {
	case model == "transformer":
		m, err = transformer.NewClassifier(transformer.KerasExample)
	case model == "lstm":
		m, err = keras.NewSequential(&layers.InputLayer{Shape: []int{lstmSteps, lstmFeatures}}, &layers.LSTM{Units: 64},
			&layers.Dense{Units: 10, Activation: "softmax"})
	case isSeed(model):
		m, err = models.Seed(model)
	default:
		m, err = models.New(model)
	}
	if err != nil {
		return nil, err
	}
	if policy != "" && policy != "float32" {
		all := m.Layers()
		for _, l := range all[:len(all)-1] {
			if err := setPolicy(l, policy); err != nil {
				return nil, err
			}
		}
	}
	opts := keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy"), Backend: engine, Seed: 1}
	if isSeed(model) {
		opts.Optimizer, opts.Metrics = &optimizers.SGD{}, keras.PerOutput[[]metrics.Metric]{}
	}
	err = m.Compile(opts)
	return m, err
}

// setPolicy sets l's dtype policy and that of every layer it holds.
func setPolicy(l layers.Layer, policy string) error {
	if err := l.Common().SetDTypePolicy(policy); err != nil {
		return err
	}
	for _, s := range layers.Sublayers(l) {
		if err := setPolicy(s.Layer, policy); err != nil {
			return err
		}
	}
	return nil
}

// Result is one measurement.
type Result struct {
	Label    string // how the implementation is named in the output
	Model    string
	Engine   string
	Batch    int
	Steps    int
	PerStep  time.Duration
	PeakRSS  int64 // bytes, the process's high-water mark
	Threads  int
	Compiled time.Duration // the warm-up steps, which compile the step
	// CoresBusy is the process's CPU time over the wall time of the
	// measured steps: how many cores the step kept busy on average (-1
	// where the CPU time cannot be read).
	CoresBusy float64
}

// StepTime trains steps batches (after warmup ones, which compile) with
// Fit and returns the mean time per step.
func StepTime(ctx context.Context, model, engine string, batch, warmup, steps int) (Result, error) {
	s, err := NewStepper(ctx, model, engine, "", batch, warmup, steps)
	if err != nil {
		return Result{}, err
	}
	return s.Time(ctx)
}

// Stepper times chunks of training steps of one compiled model, so that a
// process can be timed again and again (stepbench -serve) beside another
// implementation's process without paying its start-up each time.
type Stepper struct {
	m            *keras.Model
	model        string
	batch, steps int
	x, y         keras.Array
	compiled     time.Duration
}

// NewStepper compiles the named model on engine under the dtype policy
// (CompiledWithPolicy; "" for float32) and trains warmup batches (which
// compile the step); each Time then trains steps batches.
func NewStepper(ctx context.Context, model, engine, policy string, batch, warmup, steps int) (*Stepper, error) {
	m, err := CompiledWithPolicy(model, engine, policy)
	if err != nil {
		return nil, err
	}
	x, y := dataFor(model, batch*steps, 1)
	wx, wy := dataFor(model, batch*warmup, 2)
	start := time.Now()
	if _, err := m.Fit(ctx, wx, wy, keras.FitOptions{Verbose: keras.Silent, Epochs: 1, BatchSize: batch, NoShuffle: true}); err != nil {
		return nil, err
	}
	return &Stepper{m: m, model: model, batch: batch, steps: steps, x: x, y: y, compiled: time.Since(start)}, nil
}

// Time trains the stepper's steps batches with Fit and returns the mean
// time per step.
func (s *Stepper) Time(ctx context.Context) (Result, error) {
	var err error
	start, cpu := time.Now(), cpuTime()
	// A region, so that an execution trace of the run (stepbench -trace)
	// can be cut down to the measured steps.
	trace.WithRegion(ctx, "timed steps", func() {
		_, err = s.m.Fit(ctx, s.x, s.y, keras.FitOptions{Verbose: keras.Silent, Epochs: 1, BatchSize: s.batch, NoShuffle: true})
	})
	if err != nil {
		return Result{}, err
	}
	wall := time.Since(start)
	busy := -1.0
	if cpu >= 0 {
		busy = float64(cpuTime()-cpu) / float64(wall)
	}
	return Result{Model: s.model, Engine: s.m.Backend().Name(), Batch: s.batch, Steps: s.steps, PerStep: wall / time.Duration(s.steps),
		PeakRSS: PeakRSS(), Threads: runtime.GOMAXPROCS(0), Compiled: s.compiled, CoresBusy: busy}, nil
}

// PeakRSS returns the process's peak resident set size (VmHWM) in bytes,
// or -1 where /proc is not available.
func PeakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return -1
			}
			return kb * 1024
		}
	}
	return -1
}

// String formats r as one line of key=value pairs that scripts/bench.sh
// parses.
func (r Result) String() string {
	label := r.Label
	if label == "" {
		label = "kerasgo-" + r.Engine
	}
	return fmt.Sprintf("impl=%s model=%s batch=%d steps=%d threads=%d ms_per_step=%.2f peak_rss_mb=%.0f warmup_with_compile_ms=%.0f cores_busy=%.2f",
		label, r.Model, r.Batch, r.Steps, r.Threads, float64(r.PerStep.Microseconds())/1000, float64(r.PeakRSS)/(1<<20), float64(r.Compiled.Milliseconds()), r.CoresBusy)
}
