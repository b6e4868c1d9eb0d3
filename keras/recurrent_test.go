package keras_test

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// signOfSum is a sequence task that needs memory: n sequences of `steps`
// values in [-1, 1], labelled 1 when the first three steps sum to more
// than 0 (the recurrent layer must carry them to the end).
func signOfSum(n, steps int, seed uint64) (keras.Array, keras.Array) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := keras.Array{Shape: []int{n, steps, 1}, Data: make([]float32, n*steps)}
	y := keras.Array{Shape: []int{n, 1}, Data: make([]float32, n)}
	for i := range n {
		sum := 0.0
		for t := range steps {
			v := 2*rng.Float64() - 1
			x.Data[i*steps+t] = float32(v)
			if t < 3 {
				sum += v
			}
		}
		if sum > 0 {
			y.Data[i] = 1
		}
	}
	return x, y
}

// Each recurrent layer learns the task on every engine (accuracy on
// held-out sequences well above the 0.5 of chance), with dropout and
// recurrent dropout in training.
func TestRecurrentLayersLearn(t *testing.T) {
	x, y := signOfSum(512, 10, 1)
	xv, yv := signOfSum(256, 10, 2)
	for _, spec := range backendtest.Engines() {
		for _, c := range []struct {
			name  string
			layer func() layers.Layer
		}{
			{"LSTM", func() layers.Layer { return &layers.LSTM{Units: 8, Dropout: 0.1, RecurrentDropout: 0.1} }},
			{"GRU", func() layers.Layer { return &layers.GRU{Units: 8, Dropout: 0.1} }},
			{"SimpleRNN", func() layers.Layer { return &layers.SimpleRNN{Units: 8, GoBackwards: true} }},
			{"Bidirectional", func() layers.Layer { return &layers.Bidirectional{Layer: &layers.GRU{Units: 6}, MergeMode: "sum"} }},
		} {
			t.Run(spec+"/"+c.name, func(t *testing.T) {
				m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{10, 1}}, c.layer(), &layers.Dense{Units: 1, Activation: "sigmoid"})
				if err != nil {
					t.Fatal(err)
				}
				if err := m.Compile(keras.CompileOptions{Optimizer: optimizers.NewAdam(0.02, 0.9, 0.999, 1e-7), Loss: keras.Loss("binary_crossentropy"),
					Metrics: keras.Metrics("accuracy"), Backend: spec, Seed: 3}); err != nil {
					if strings.Contains(err.Error(), "built without") {
						t.Skip(err)
					}
					t.Fatal(err)
				}
				if _, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 20, BatchSize: 32, Verbose: keras.Silent, Seed: 5}); err != nil {
					t.Fatal(err)
				}
				logs, err := m.Evaluate(context.Background(), xv, yv, keras.EvaluateOptions{Verbose: keras.Silent})
				if err != nil {
					t.Fatal(err)
				}
				acc, _ := logs.Get("accuracy")
				loss, _ := logs.Get("loss")
				t.Logf("%s %s: held-out accuracy %.3f, loss %.3f", spec, c.name, acc, loss)
				if acc < 0.8 {
					t.Errorf("held-out accuracy %.3f, want at least 0.8", acc)
				}
			})
		}
	}
}

// A GRU and an LSTM with the same weights predict the same on every
// engine (within 1e-5) and follow the same losses over 40 SGD steps
// (within 1e-4): the unrolled recurrence is written once above them.
func TestRecurrentCrossEngine(t *testing.T) {
	engines := twoEngines(t)
	x, y := signOfSum(64, 15, 7)
	var weights [][]float32
	var preds [][]float32
	var losses [][]float64
	for i, spec := range engines {
		m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{15, 1}}, &layers.GRU{Units: 6, ReturnSequences: true}, &layers.LSTM{Units: 5},
			&layers.Dense{Units: 1, Activation: "sigmoid"})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{LearningRate: 0.1}, Loss: keras.Loss("binary_crossentropy"), Backend: spec, Seed: 4}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if weights, err = m.GetWeights(); err != nil {
				t.Fatal(err)
			}
		} else if err := m.SetWeights(weights); err != nil {
			t.Fatal(err)
		}
		p, err := m.Predict(context.Background(), x, keras.PredictOptions{BatchSize: 16})
		if err != nil {
			t.Fatal(err)
		}
		preds = append(preds, p.Data)
		h, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 10, BatchSize: 16, NoShuffle: true})
		if err != nil {
			t.Fatal(err)
		}
		losses = append(losses, h.Logs["loss"])
	}
	for i := 1; i < len(engines); i++ {
		if d := maxDiff(preds[0], preds[i]); d > 1e-5 {
			t.Errorf("predictions of %s and %s differ by %.2g", engines[0], engines[i], d)
		}
		for e := range losses[0] {
			if d := math.Abs(losses[i][e] - losses[0][e]); d > 1e-4 {
				t.Fatalf("epoch %d loss: %s %v, %s %v", e+1, engines[0], losses[0][e], engines[i], losses[i][e])
			}
		}
	}
}

// Bidirectional(GRU(32)) over 8 features has Keras's 8,064 parameters
// (two GRUs of 3*32*(8+32) + 2*3*32), saves its directions where Keras
// does (layers/bidirectional/forward_layer/cell/vars) and loads back to
// the same predictions.
func TestBidirectionalSummaryAndSave(t *testing.T) {
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{10, 8}}, &layers.Bidirectional{Layer: &layers.GRU{Units: 32}}, &layers.Dense{Units: 1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.Summary()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"bidirectional (Bidirectiona", "(None, 64)", "8,064", "Total params: 8,129 "} {
		if !strings.Contains(s, want) && !strings.Contains(s, strings.ReplaceAll(want, ",", "")) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("mse"), Seed: 1}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bi.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	tree := strings.Join(h5Tree(t, unzip(t, path)["model.weights.h5"]), " ")
	for _, want := range []string{"layers/bidirectional/forward_layer/cell/vars/0", "layers/bidirectional/backward_layer/cell/vars/2"} {
		if !strings.Contains(tree, want) {
			t.Errorf("the weights file lacks %s: %s", want, tree)
		}
	}
	loaded, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := signOfSum(4, 10, 3)
	x8 := keras.Array{Shape: []int{4, 10, 8}, Data: make([]float32, 4*10*8)}
	for i := range x8.Data {
		x8.Data[i] = x.Data[i/8] * float32(i%8+1) / 8
	}
	a, err := m.Predict(context.Background(), x8, keras.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := loaded.Predict(context.Background(), x8, keras.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(a.Data, b.Data); d != 0 {
		t.Errorf("predictions differ by %g after loading", d)
	}
}

// TimeDistributed(Dense) before an LSTM saves its Dense's variables where
// Keras does (layers/time_distributed/layer/vars) and loads back to the
// same predictions; Summary counts the Dense's parameters.
func TestTimeDistributedSave(t *testing.T) {
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{4, 6}}, &layers.TimeDistributed{Layer: &layers.Dense{Units: 3}}, &layers.LSTM{Units: 2}, &layers.Dense{Units: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.CountParams(); got != 21+48+3 {
		t.Errorf("CountParams = %d, want 21 + 48 + 3", got)
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("mse"), Seed: 1}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "td.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	if tree := strings.Join(h5Tree(t, unzip(t, path)["model.weights.h5"]), " "); !strings.Contains(tree, "layers/time_distributed/layer/vars/1") {
		t.Errorf("the weights file lacks layers/time_distributed/layer/vars/1: %s", tree)
	}
	loaded, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	x := keras.Array{Shape: []int{2, 4, 6}, Data: make([]float32, 48)}
	for i := range x.Data {
		x.Data[i] = float32(i%7) / 7
	}
	a, err := m.Predict(context.Background(), x, keras.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := loaded.Predict(context.Background(), x, keras.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(a.Data, b.Data); d != 0 {
		t.Errorf("predictions differ by %g after loading", d)
	}
}
