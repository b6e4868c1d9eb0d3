package keras_test

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/internal/h5"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RNN over a built-in cell is the built-in layer: from the same weights,
// three epochs of training give the same losses and weights (1e-5) on
// every engine, for LSTMCell, GRUCell (going backwards) and
// SimpleRNNCell; a stack of cells is the layers one after another.
func TestRNNCellsTrainAsTheirLayers(t *testing.T) {
	xs, y := reversal(96, 5, 3)
	x := xs[0] // the sequence; the target is it reversed
	pairs := []struct {
		name        string
		layer, cell func() layers.Layer
	}{
		{"lstm", func() layers.Layer { return &layers.LSTM{Units: 4, ReturnSequences: true} },
			func() layers.Layer { return &layers.RNN{Cell: &layers.LSTMCell{Units: 4}, ReturnSequences: true} }},
		{"gru_backwards", func() layers.Layer { return &layers.GRU{Units: 3, GoBackwards: true, ReturnSequences: true} },
			func() layers.Layer {
				return &layers.RNN{Cell: &layers.GRUCell{Units: 3}, GoBackwards: true, ReturnSequences: true}
			}},
		{"simple_rnn", func() layers.Layer { return &layers.SimpleRNN{Units: 3, Activation: "relu", ReturnSequences: true} },
			func() layers.Layer {
				return &layers.RNN{Cell: &layers.SimpleRNNCell{Units: 3, Activation: "relu"}, ReturnSequences: true}
			}},
	}
	for _, spec := range backendtest.Engines() {
		for _, p := range pairs {
			t.Run(spec+"/"+p.name, func(t *testing.T) {
				a, b := sequenceModel(t, p.layer()), sequenceModel(t, p.cell())
				trainSame(t, spec, a, b, x, y)
			})
		}
		t.Run(spec+"/stacked", func(t *testing.T) {
			in := layers.Input(5, 1)
			stacked := layers.Apply(&layers.LSTM{Units: 2, ReturnSequences: true}, layers.Apply(&layers.GRU{Units: 3, ReturnSequences: true}, in))
			a := keras.Must(keras.NewModel(in, layers.Apply(&layers.TimeDistributed{Layer: &layers.Dense{Units: 1}}, stacked)))
			cells := &layers.RNN{Cell: &layers.StackedRNNCells{Cells: []layers.RecurrentCell{&layers.GRUCell{Units: 3}, &layers.LSTMCell{Units: 2}}}, ReturnSequences: true}
			trainSame(t, spec, a, sequenceModel(t, cells), x, y)
		})
	}
}

// sequenceModel is rec over (batch, 5, 1), then a Dense on each step.
func sequenceModel(t *testing.T, rec layers.Layer) *keras.Model {
	t.Helper()
	in := layers.Input(5, 1)
	out := layers.Apply(&layers.TimeDistributed{Layer: &layers.Dense{Units: 1}}, layers.Apply(rec, in))
	m, err := keras.NewModel(in, out)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// trainSame gives b a's weights, trains both alike and compares.
func trainSame(t *testing.T, spec string, a, b *keras.Model, x keras.Array, y keras.Array) {
	t.Helper()
	for _, m := range []*keras.Model{a, b} {
		if err := m.Compile(keras.CompileOptions{Optimizer: optimizers.NewAdam(0.01, 0.9, 0.999, 1e-7), Loss: keras.Loss("mse"), Backend: spec, Seed: 1}); err != nil {
			if strings.Contains(err.Error(), "built without") {
				t.Skip(err)
			}
			t.Fatal(err)
		}
	}
	w, err := a.GetWeights()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetWeights(w); err != nil {
		t.Fatalf("the cell's model does not take the layer's weights: %v", err)
	}
	ctx := context.Background()
	fit := func(m *keras.Model) []float64 {
		h, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 3, BatchSize: 16, Verbose: keras.Silent, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		return h.Logs["loss"]
	}
	la, lb := fit(a), fit(b)
	for i := range la {
		if math.Abs(la[i]-lb[i]) > 1e-5*math.Max(1, math.Abs(la[i])) {
			t.Fatalf("epoch %d: loss %.7f with the layer, %.7f with the cell", i, la[i], lb[i])
		}
	}
	wa, _ := a.GetWeights()
	wb, _ := b.GetWeights()
	for i := range wa {
		for j := range wa[i] {
			if d := math.Abs(float64(wa[i][j] - wb[i][j])); d > 1e-5 {
				t.Fatalf("weight %d[%d] after training: %v with the layer, %v with the cell", i, j, wa[i][j], wb[i][j])
			}
		}
	}
	if la[len(la)-1] >= la[0] {
		t.Errorf("the loss did not fall: %v", la)
	}
}

// A cell of your own (the minimal cell of Keras's RNN documentation)
// trains in an RNN, saves under the RNN's "cell" group and loads back
// once registered.
func TestCustomRecurrentCellTrainsAndSaves(t *testing.T) {
	xs, y := reversal(96, 5, 4)
	x := xs[0]
	for _, spec := range backendtest.Engines() {
		t.Run(spec, func(t *testing.T) {
			m := sequenceModel(t, &layers.RNN{Cell: &minimalTestCell{Units: 3}, ReturnSequences: true})
			if err := m.Compile(keras.CompileOptions{Optimizer: optimizers.NewAdam(0.01, 0.9, 0.999, 1e-7), Loss: keras.Loss("mse"), Backend: spec, Seed: 1}); err != nil {
				if strings.Contains(err.Error(), "built without") {
					t.Skip(err)
				}
				t.Fatal(err)
			}
			ctx := context.Background()
			h, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 5, BatchSize: 16, Verbose: keras.Silent, Seed: 2})
			if err != nil {
				t.Fatal(err)
			}
			if l := h.Logs["loss"]; l[len(l)-1] >= l[0] {
				t.Errorf("the loss did not fall: %v", l)
			}
			path := filepath.Join(t.TempDir(), "cell.keras")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			weights := filepath.Join(t.TempDir(), "cell.weights.h5")
			if err := m.SaveWeights(weights); err != nil {
				t.Fatal(err)
			}
			f, err := h5.Open(weights)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range []string{"layers/rnn/cell/vars/0", "layers/rnn/cell/vars/1"} {
				if f.Dataset(name) == nil {
					t.Errorf("the weights file has no %s, where Keras keeps the cell's variable", name)
				}
			}
			f.Close()
			loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: spec})
			if err != nil {
				t.Fatal(err)
			}
			a, _ := m.Predict(ctx, x, keras.PredictOptions{})
			b, err := loaded.Predict(ctx, x, keras.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range a.Data {
				if math.Abs(float64(a.Data[i]-b.Data[i])) > 1e-6 {
					t.Fatalf("the loaded model predicts %v where the saved one predicts %v", b.Data[i], a.Data[i])
				}
			}
		})
	}
}

// minimalTestCell is the cell of Keras's RNN documentation: output =
// x·kernel + h·recurrent_kernel, one state; registered to be saved.
type minimalTestCell struct {
	Units int
	layers.Base
	kernel, recurrent *layers.Weight
}

func init() {
	keras.MustOK(keras.RegisterLayer("MinimalTestCell", func(r *serialization.Reader) (layers.Layer, error) {
		return &minimalTestCell{Units: r.PositiveInt("units", 0)}, nil
	}))
}

func (*minimalTestCell) ClassName() string   { return "MinimalTestCell" }
func (c *minimalTestCell) StateSizes() []int { return []int{c.Units} }
func (c *minimalTestCell) OutputSize() int   { return c.Units }
func (c *minimalTestCell) GetConfig() (serialization.Config, error) {
	return serialization.Config{"units": c.Units}, nil
}

func (c *minimalTestCell) Build(in []backend.Shape) (backend.Shape, error) {
	var err error
	if c.kernel, err = c.AddWeight("kernel", backend.Shape{in[0][1], c.Units}, initializers.GlorotUniform{}); err != nil {
		return nil, err
	}
	if c.recurrent, err = c.AddWeight("recurrent_kernel", backend.Shape{c.Units, c.Units}, initializers.Orthogonal{}); err != nil {
		return nil, err
	}
	return backend.Shape{in[0][0], c.Units}, nil
}

func (c *minimalTestCell) Step(ctx *layers.Context, x backend.Value, states []backend.Value) (backend.Value, []backend.Value) {
	b := ctx.B
	out := ops.Tanh(b, ops.Add(b, ops.Matmul(b, x, ctx.Weight(c.kernel)), ops.Matmul(b, states[0], ctx.Weight(c.recurrent))))
	return out, []backend.Value{out}
}

func (c *minimalTestCell) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	out, _ := c.Step(ctx, in[0], in[1:])
	return out
}

// A ConvLSTM2D with dropout and recurrent dropout (one mask per gate per
// call) trains: the loss falls on every engine.
func TestConvLSTMTrainsWithDropout(t *testing.T) {
	n := 64
	x := keras.Array{Shape: []int{n, 3, 4, 4, 1}, Data: make([]float32, n*3*16)}
	y := keras.Array{Shape: []int{n, 1}, Data: make([]float32, n)}
	for i := range n {
		s := float32(0)
		for j := range 48 {
			v := float32((i*7+j*3)%11)/5 - 1
			x.Data[i*48+j] = v
			s += v
		}
		y.Data[i] = s / 48
	}
	for _, spec := range backendtest.Engines() {
		t.Run(spec, func(t *testing.T) {
			in := layers.Input(3, 4, 4, 1)
			h := layers.Apply(&layers.ConvLSTM2D{Filters: 2, KernelSize: [2]int{2, 2}, Padding: "same", Dropout: 0.2, RecurrentDropout: 0.2}, in)
			out := layers.Apply(&layers.Dense{Units: 1}, layers.Apply(&layers.GlobalAveragePooling2D{}, h))
			m := keras.Must(keras.NewModel(in, out))
			if err := m.Compile(keras.CompileOptions{Optimizer: optimizers.NewAdam(0.02, 0.9, 0.999, 1e-7), Loss: keras.Loss("mse"), Backend: spec, Seed: 1}); err != nil {
				if strings.Contains(err.Error(), "built without") {
					t.Skip(err)
				}
				t.Fatal(err)
			}
			hist, err := m.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 8, BatchSize: 16, Verbose: keras.Silent, Seed: 2})
			if err != nil {
				t.Fatal(err)
			}
			if l := hist.Logs["loss"]; l[len(l)-1] >= l[0] {
				t.Errorf("the loss did not fall: %v", l)
			}
		})
	}
}
