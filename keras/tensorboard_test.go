package keras_test

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/internal/kerasref"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// tbRun is a run directory as TensorBoard's EventAccumulator reads it
// (scripts/tensorboard-check.py): run -> tag -> plugin and events.
type tbRun map[string]map[string]struct {
	Plugin string               `json:"plugin"`
	Events [][2]json.RawMessage `json:"events"`
}

func readTensorBoard(t *testing.T, python string, args ...string) tbRun {
	t.Helper()
	out := kerasref.Run(t, python, append([]string{kerasref.Script(t, "tensorboard-check.py")}, args...)...)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var run tbRun
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &run); err != nil {
		t.Fatalf("reading the reader's output: %v\n%s", err, out)
	}
	return run
}

// tags lists a run's tags with their plugin and number of events.
func (r tbRun) tags() []string {
	var out []string
	for run, tags := range r {
		for tag, v := range tags {
			out = append(out, run+" "+tag+" "+v.Plugin+" "+string(rune('0'+len(v.Events))))
		}
	}
	sort.Strings(out)
	return out
}

// scalars returns a scalar tag's (step, value) pairs.
func (r tbRun) scalars(t *testing.T, run, tag string) map[int64]float64 {
	t.Helper()
	v, ok := r[run][tag]
	if !ok || v.Plugin != "scalars" {
		t.Fatalf("run %s has no scalar %s: %v", run, tag, r.tags())
	}
	out := map[int64]float64{}
	for _, e := range v.Events {
		var step int64
		var x float64
		if json.Unmarshal(e[0], &step) != nil || json.Unmarshal(e[1], &x) != nil {
			t.Fatalf("%s %s: event %s", run, tag, e)
		}
		out[step] = x
	}
	return out
}

// A TensorBoard run written by kerasgo reads back through TensorBoard's
// own reader (tensorboard 2.20's EventAccumulator) with Keras's tags,
// plugins and steps, the same as Keras 3.15's TensorBoard callback writes
// for the same model and Fit (every tag, on every engine), and with
// kerasgo's own values: the epoch scalars are the History's, the batch
// scalars are 12 steps of running logs, the evaluations sit at the
// iteration counts, the histograms hold every weight value, the images
// are PNGs of Keras's sizes. Skipped without `make keras-env`.
func TestTensorBoardIsReadByTensorBoard(t *testing.T) {
	python := kerasref.Python(t)
	kerasDir := t.TempDir()
	want := readTensorBoard(t, python, "keras", kerasDir).tags()
	x := keras.Array{Shape: []int{32, 3}, Data: make([]float32, 96)}
	y := keras.Array{Shape: []int{32}, Data: make([]float32, 32)}
	for i := range 32 {
		for j := range 3 {
			x.Data[i*3+j] = float32(math.Sin(float64(i*3+j) * 1.7))
		}
		if x.Data[i*3] > 0 {
			y.Data[i] = 1
		}
	}
	vx, vy := keras.Array{Shape: []int{16, 3}, Data: x.Data[:48]}, keras.Array{Shape: []int{16}, Data: y.Data[:16]}
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{3}},
			&layers.Dense{Units: 4, Activation: "relu", Base: layers.Base{Name: "dense"}},
			&layers.Dense{Units: 2, Activation: "softmax", Base: layers.Base{Name: "dense_1"}})
		if err != nil {
			t.Fatal(err)
		}
		m.Name = "sequential" // Keras's first Sequential model's name, which its weights' paths begin with
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"),
			Metrics: keras.Metrics("accuracy"), Backend: be.Name()}); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		tb := &callbacks.TensorBoard{LogDir: dir, HistogramFreq: 1, WriteImages: true, UpdateFreq: 1}
		h, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 3, BatchSize: 8,
			ValidationData: &keras.Data{X: vx, Y: vy}, Callbacks: []callbacks.Callback{tb}})
		if err != nil {
			t.Fatal(err)
		}
		if tb.Err() != nil {
			t.Fatal(tb.Err())
		}
		run := readTensorBoard(t, python, "read", dir)
		if got := run.tags(); !slices.Equal(got, want) {
			t.Errorf("tags (run, tag, plugin, events):\nkerasgo %v\nKeras   %v", got, want)
		}
		close32 := func(what string, got, want float64) {
			t.Helper()
			if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Errorf("%s = %v, kerasgo logged %v", what, got, want)
			}
		}
		for _, name := range []string{"loss", "accuracy"} {
			train, val := run.scalars(t, "train", "epoch_"+name), run.scalars(t, "validation", "epoch_"+name)
			for e := range 3 {
				close32("train epoch_"+name, train[int64(e)], h.Logs[name][e])
				close32("validation epoch_"+name, val[int64(e)], h.Logs["val_"+name][e])
			}
			evals := run.scalars(t, "validation", "evaluation_"+name+"_vs_iterations")
			for e, step := range []int64{4, 8, 12} {
				close32("evaluation_"+name+"_vs_iterations", evals[step], h.Logs["val_"+name][e])
			}
		}
		for step, lr := range run.scalars(t, "train", "epoch_learning_rate") {
			close32("epoch_learning_rate at "+string(rune('0'+step)), lr, 0.001)
		}
		batches := run.scalars(t, "train", "batch_loss")
		for step := int64(1); step <= 12; step++ {
			if _, ok := batches[step]; !ok {
				t.Errorf("no batch_loss at step %d: %v", step, batches)
			}
		}
		// The last batch's running loss is the epoch's loss.
		close32("batch_loss at step 12", batches[12], h.Logs["loss"][2])
		for _, w := range []struct {
			path  string
			count float64
		}{{"sequential/dense/kernel", 12}, {"sequential/dense/bias", 4}, {"sequential/dense_1/kernel", 8}, {"sequential/dense_1/bias", 2}} {
			hist := run["train"][w.path+"/histogram"]
			for _, e := range hist.Events {
				var v struct {
					Buckets int     `json:"buckets"`
					Total   float64 `json:"total"`
				}
				if err := json.Unmarshal(e[1], &v); err != nil || v.Buckets != 30 || v.Total != w.count {
					t.Errorf("%s histogram %s: want 30 buckets holding %v values", w.path, e[1], w.count)
				}
			}
		}
		for _, e := range run["train"]["sequential/dense/kernel/image"].Events {
			var v struct{ Width, Height, Pngs int }
			if err := json.Unmarshal(e[1], &v); err != nil || v.Width != 4 || v.Height != 3 || v.Pngs != 1 {
				t.Errorf("kernel image %s: want one PNG 4 wide and 3 high, as Keras draws a (3, 4) kernel", e[1])
			}
		}
	})
}
