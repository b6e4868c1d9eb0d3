//go:build libtorch && cgo

package distribution_test

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/internal/disttest"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/distribution"
	_ "github.com/kerasgo/kerasgo/keras/distribution/c10d"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// The job of TestDataParallelMatchesOneProcess: each rank trains the MLP
// for `steps` SGD steps of `perRank` samples on its shard.
const (
	steps    = 50
	perRank  = 4
	features = 8
	classes  = 3
)

func init() { workers["train-mlp"] = trainMLPWorker }

// mlp is the model every rank and the single-process reference train;
// with batchNorm, a BatchNormalization follows the hidden layer.
func mlp(batchNorm bool) (*keras.Model, error) {
	ls := []layers.Layer{&layers.InputLayer{Shape: []int{features}}, &layers.Dense{Units: 16, Activation: "relu"}}
	if batchNorm {
		ls = append(ls, &layers.BatchNormalization{})
	}
	return keras.NewSequential(append(ls, &layers.Dense{Units: classes, Activation: "softmax"})...)
}

// joinMLP is the start of every worker: it joins the job with this c10d
// timeout and compiles the MLP for it on $TEST_ENGINE. Close dp when done.
func joinMLP(timeout time.Duration, batchNorm bool) (*distribution.DataParallel, *keras.Model, error) {
	dp, err := distribution.NewDataParallel(distribution.Config{Timeout: timeout})
	if err != nil {
		return nil, nil, err
	}
	m, err := mlp(batchNorm)
	if err == nil {
		opts := compileOpts(os.Getenv("TEST_ENGINE"), dp)
		if os.Getenv("TEST_CUSTOM_STEP") != "" {
			opts.TrainStep, opts.TestStep = customTrainStep, customTestStep
		}
		err = m.Compile(opts)
	}
	if err != nil {
		dp.Close()
		return nil, nil, err
	}
	return dp, m, nil
}

// mlpData is n samples of a learnable 3-class problem, the same on every
// process.
func mlpData(n int) (keras.Array, keras.Array) {
	r := rand.New(rand.NewPCG(42, 7))
	x := make([]float32, n*features)
	y := make([]float32, n)
	for i := range n {
		c := r.IntN(classes)
		y[i] = float32(c)
		for j := range features {
			x[i*features+j] = float32(r.NormFloat64()) + float32(c*(j%2))
		}
	}
	return keras.Array{Shape: []int{n, features}, Data: x}, keras.Array{Shape: []int{n}, Data: y}
}

func compileOpts(engine string, dp *distribution.DataParallel) keras.CompileOptions {
	return keras.CompileOptions{Optimizer: &optimizers.SGD{LearningRate: 0.1}, Loss: keras.Loss("sparse_categorical_crossentropy"),
		Metrics: keras.Metrics("accuracy"), Backend: engine, Seed: 7, Distribution: dp}
}

// rankReport is what a rank writes for the test to compare.
type rankReport struct {
	StepHashes []uint64    // of the weights after every step
	Weights    [][]float32 // after the last step
	Loss       float64     // the epoch's logged loss
	Accuracy   float64
	EvalLoss   float64 // Evaluate on all the data
	Predicted  []float32
}

func hashWeights(ws [][]float32) uint64 {
	h := fnv.New64a()
	for _, w := range ws {
		for _, v := range w {
			b := math.Float32bits(v)
			h.Write([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24)})
		}
	}
	return h.Sum64()
}

func trainMLPWorker() error {
	dp, m, err := joinMLP(time.Minute, os.Getenv("TEST_BATCHNORM") != "")
	if err != nil {
		return err
	}
	defer dp.Close()
	x, y := mlpData(steps * perRank * dp.WorldSize())
	var rep rankReport
	record := &callbacks.Lambda{TrainBatchEnd: func(int, callbacks.Logs) {
		ws, err := m.GetWeights()
		if err == nil {
			rep.StepHashes = append(rep.StepHashes, hashWeights(ws))
		}
	}}
	var hist *keras.History
	if os.Getenv("TEST_DATASET") != "" {
		// The same batches from a Dataset: each rank loads its share.
		ds := globalBatches{x: x, y: y, world: dp.WorldSize()}
		hist, err = m.Fit(context.Background(), keras.Batches{Dataset: ds, Workers: 2}, nil, keras.FitOptions{Epochs: 1, NoShuffle: true, Verbose: keras.Silent, Callbacks: []callbacks.Callback{record}})
	} else {
		hist, err = m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: perRank, NoShuffle: true, Verbose: keras.Silent, Callbacks: []callbacks.Callback{record}})
	}
	if err != nil {
		return err
	}
	rep.Loss, rep.Accuracy = hist.Logs["loss"][0], hist.Logs["accuracy"][0]
	if rep.Weights, err = m.GetWeights(); err != nil {
		return err
	}
	logs, err := m.Evaluate(context.Background(), x, y, keras.EvaluateOptions{BatchSize: 7, Verbose: keras.Silent})
	if err != nil {
		return err
	}
	rep.EvalLoss, _ = logs.Get("loss")
	p, err := m.Predict(context.Background(), x, keras.PredictOptions{BatchSize: 7})
	if err != nil {
		return err
	}
	rep.Predicted = p.Data
	data, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(os.Getenv("TEST_OUT"), "rank"+os.Getenv("RANK")+".json"), data, 0o644)
}

// TestDataParallelMatchesOneProcess trains the MLP on 2 and 4 processes
// for 50 SGD steps on each engine: after every step all ranks hold
// bit-identical weights, and the weights, the logged loss, Evaluate and
// Predict equal one process's on the concatenated global batches within
// 1e-5.
func TestDataParallelMatchesOneProcess(t *testing.T) {
	if err := distribution.Available(); err != nil {
		t.Skipf("distributed tests SKIPPED: %v", err)
	}
	for _, engine := range openEngines(t) {
		for _, world := range []int{2, 4} {
			t.Run(fmt.Sprintf("%s/%d", engine, world), func(t *testing.T) {
				dir := t.TempDir()
				res := disttest.Run(t, "train-mlp", world, 3*time.Minute, "TEST_ENGINE="+engine, "TEST_OUT="+dir)
				for _, r := range res {
					if r.Err != nil {
						t.Fatalf("rank %d: %v\n%s", r.Rank, r.Err, r.Output)
					}
				}
				checkRanks(t, engine, world, dir)
			})
		}
	}
}

// globalOrder returns the job's data x, y in the order one process
// trains on it to take the job's steps: each batch of world*perRank
// samples the concatenation of the ranks' batches (rank r's shard is
// samples r, r+world, ...; distribution.Shard).
func globalOrder(x, y keras.Array, world int) (keras.Array, keras.Array) {
	gx := keras.Array{Shape: x.Shape, Data: make([]float32, 0, len(x.Data))}
	gy := keras.Array{Shape: y.Shape, Data: make([]float32, 0, len(y.Data))}
	for s := range steps {
		for r := range world {
			for j := range perRank {
				i := r + world*(s*perRank+j)
				gx.Data = append(gx.Data, x.Data[i*features:(i+1)*features]...)
				gy.Data = append(gy.Data, y.Data[i])
			}
		}
	}
	return gx, gy
}

// globalBatches is the job's data as a keras.Dataset of perRank-sample
// batches: batch k*world + r is what rank r's k-th batch is when it
// trains on its shard of the arrays (samples r, r+world, ...), so that
// a Dataset's batches, dealt out to the ranks (every world-th batch),
// make the same steps as the arrays.
type globalBatches struct {
	x, y  keras.Array
	world int
}

func (g globalBatches) Len() int { return g.y.Shape[0] / perRank }

func (g globalBatches) Batch(_ context.Context, i int) (keras.Batch, error) {
	k, r := i/g.world, i%g.world
	x := keras.Array{Shape: []int{perRank, features}}
	y := keras.Array{Shape: []int{perRank}}
	for j := range perRank {
		n := r + g.world*(k*perRank+j)
		x.Data = append(x.Data, g.x.Data[n*features:(n+1)*features]...)
		y.Data = append(y.Data, g.y.Data[n])
	}
	return keras.Batch{X: x, Y: y}, nil
}

// Fit from a keras.Dataset trains data parallel as from arrays: each of 2
// processes loads only its share of the batches (every WorldSize-th), and
// the ranks stay bit-identical after every step and equal one process's
// training on the global batches within 1e-5.
func TestDataParallelFromDataset(t *testing.T) {
	if err := distribution.Available(); err != nil {
		t.Skipf("distributed tests SKIPPED: %v", err)
	}
	for _, engine := range openEngines(t) {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			res := disttest.Run(t, "train-mlp", 2, 3*time.Minute, "TEST_ENGINE="+engine, "TEST_OUT="+dir, "TEST_DATASET=1")
			for _, r := range res {
				if r.Err != nil {
					t.Fatalf("rank %d: %v\n%s", r.Rank, r.Err, r.Output)
				}
			}
			checkRanks(t, engine, 2, dir)
		})
	}
}

// customTrainStep and customTestStep do what the built-in steps do, as a
// custom step (CompileOptions.TrainStep, TestStep) written by a user.
func customTrainStep(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
	pred := s.Call(s.Model(), true, d.X...)
	loss := s.ComputeLoss(d.Y, pred, d.SampleWeights)
	vars := s.Model().TrainableWeights()
	s.Apply(nil, s.Gradients(loss, vars), vars)
	return append(keras.StepLogs{{Name: "loss", Value: loss}}, s.ComputeMetrics(d.Y, pred, d.SampleWeights)...), nil
}

func customTestStep(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
	pred := s.Call(s.Model(), false, d.X...)
	loss := s.ComputeLoss(d.Y, pred, d.SampleWeights)
	return append(keras.StepLogs{{Name: "loss", Value: loss}}, s.ComputeMetrics(d.Y, pred, d.SampleWeights)...), nil
}

// A custom training and test step trains data parallel as the built-in
// ones do: the ranks stay bit-identical after every step, and the weights,
// logs, Evaluate and Predict equal one process's built-in training on the
// global batches within 1e-5 (Step.Gradients averages the gradients over
// the processes; the logs are averaged as the built-in step's).
func TestCustomStepDataParallel(t *testing.T) {
	if err := distribution.Available(); err != nil {
		t.Skipf("distributed tests SKIPPED: %v", err)
	}
	for _, engine := range openEngines(t) {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			for _, r := range disttest.Run(t, "train-mlp", 2, 3*time.Minute, "TEST_ENGINE="+engine, "TEST_OUT="+dir, "TEST_CUSTOM_STEP=1") {
				if r.Err != nil {
					t.Fatalf("rank %d: %v\n%s", r.Rank, r.Err, r.Output)
				}
			}
			checkRanks(t, engine, 2, dir)
		})
	}
}

// openEngines returns the engines the tests cover that open here, logging
// why the others do not.
func openEngines(t *testing.T) []string {
	var out []string
	for _, engine := range backendtest.Engines() {
		be, err := backend.Open(engine)
		if err != nil {
			t.Logf("%s: %v", engine, err)
			continue
		}
		be.Close()
		out = append(out, engine)
	}
	return out
}

// TestBatchNormalizationStaysInStep: BatchNormalization's moving
// statistics, which every process updates from its own batch, are averaged
// in the step's allreduce, so the processes still hold bit-identical
// weights after every step (PyTorch's DDP instead copies rank 0's buffers
// at every forward).
func TestBatchNormalizationStaysInStep(t *testing.T) {
	if err := distribution.Available(); err != nil {
		t.Skipf("distributed tests SKIPPED: %v", err)
	}
	dir := t.TempDir()
	for _, r := range disttest.Run(t, "train-mlp", 2, 3*time.Minute, "TEST_ENGINE=gorgonia", "TEST_OUT="+dir, "TEST_BATCHNORM=1") {
		if r.Err != nil {
			t.Fatalf("rank %d: %v\n%s", r.Rank, r.Err, r.Output)
		}
	}
	reps := readReports(t, dir, 2)
	if len(reps[0].Weights) != 8 { // 2 Dense x 2 + gamma, beta, moving mean, moving variance
		t.Fatalf("%d weights, want 8 with BatchNormalization's", len(reps[0].Weights))
	}
	for s, h := range reps[1].StepHashes {
		if h != reps[0].StepHashes[s] {
			t.Fatalf("after step %d rank 1's weights (moving statistics included) differ from rank 0's", s+1)
		}
	}
}

// readReports reads the reports of a train-mlp job's ranks.
func readReports(t *testing.T, dir string, world int) []rankReport {
	t.Helper()
	reps := make([]rankReport, world)
	for r := range world {
		data, err := os.ReadFile(filepath.Join(dir, "rank"+strconv.Itoa(r)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &reps[r]); err != nil {
			t.Fatal(err)
		}
	}
	return reps
}

// checkRanks compares the reports the ranks of a train-mlp job wrote in
// dir with each other and with one process's training.
func checkRanks(t *testing.T, engine string, world int, dir string) {
	t.Helper()
	reps := readReports(t, dir, world)
	if len(reps[0].StepHashes) != steps {
		t.Fatalf("rank 0 took %d steps, want %d", len(reps[0].StepHashes), steps)
	}
	for r := 1; r < world; r++ {
		for s, h := range reps[r].StepHashes {
			if h != reps[0].StepHashes[s] {
				t.Fatalf("after step %d rank %d's weights differ from rank 0's", s+1, r)
			}
		}
		if reps[r].Loss != reps[0].Loss || reps[r].EvalLoss != reps[0].EvalLoss {
			t.Errorf("rank %d logged loss %v and evaluated %v, rank 0 %v and %v", r, reps[r].Loss, reps[r].EvalLoss, reps[0].Loss, reps[0].EvalLoss)
		}
	}
	want := oneProcess(t, engine, world)
	for i := range want.Weights {
		for j, w := range want.Weights[i] {
			if got := reps[0].Weights[i][j]; math.Abs(float64(got-w)) > 1e-5 {
				t.Fatalf("weight %d[%d]: %d processes %v, one process %v", i, j, world, got, w)
			}
		}
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"loss", reps[0].Loss, want.Loss}, {"accuracy", reps[0].Accuracy, want.Accuracy}, {"evaluated loss", reps[0].EvalLoss, want.EvalLoss}} {
		if math.Abs(c.got-c.want) > 1e-5 {
			t.Errorf("%s: %d processes %v, one process %v", c.name, world, c.got, c.want)
		}
	}
	for i, p := range want.Predicted {
		if math.Abs(float64(reps[world-1].Predicted[i]-p)) > 1e-5 {
			t.Fatalf("prediction %d on rank %d: %v, one process %v", i, world-1, reps[world-1].Predicted[i], p)
		}
	}
	t.Logf("%d ranks, %d steps: weights equal after every step; loss %.6f (one process %.6f)", world, steps, reps[0].Loss, want.Loss)
}

// oneProcess trains the same model alone on batches of world*perRank
// samples, each the concatenation of the ranks' batches (rank r's shard is
// samples r, r+world, ...; distribution.Shard), and reports as a rank does.
func oneProcess(t *testing.T, engine string, world int) rankReport {
	x, y := mlpData(steps * perRank * world)
	gx, gy := globalOrder(x, y, world)
	m, err := mlp(false)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(compileOpts(engine, nil)); err != nil {
		t.Fatal(err)
	}
	hist, err := m.Fit(context.Background(), gx, gy, keras.FitOptions{Epochs: 1, BatchSize: perRank * world, NoShuffle: true, Verbose: keras.Silent})
	if err != nil {
		t.Fatal(err)
	}
	rep := rankReport{Loss: hist.Logs["loss"][0], Accuracy: hist.Logs["accuracy"][0]}
	if rep.Weights, err = m.GetWeights(); err != nil {
		t.Fatal(err)
	}
	logs, err := m.Evaluate(context.Background(), x, y, keras.EvaluateOptions{BatchSize: 7, Verbose: keras.Silent})
	if err != nil {
		t.Fatal(err)
	}
	rep.EvalLoss, _ = logs.Get("loss")
	p, err := m.Predict(context.Background(), x, keras.PredictOptions{BatchSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	rep.Predicted = p.Data
	return rep
}
