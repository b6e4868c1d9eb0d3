package keras_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// seq2seq is Keras's encoder-decoder of "Working with RNNs": the encoder
// LSTM's final states start the decoder LSTM.
func seq2seq(t *testing.T, steps int) *keras.Model {
	t.Helper()
	enc := layers.NamedInput("encoder", steps, 1)
	dec := layers.NamedInput("decoder", steps, 1)
	outs := layers.ApplyOutputs(&layers.LSTM{Units: 16, ReturnState: true}, enc)
	seq := layers.Apply(&layers.LSTM{Units: 16, ReturnSequences: true}, dec, outs[1], outs[2])
	y := layers.Apply(&layers.Dense{Units: 1}, seq)
	m, err := keras.NewFunctional([]*layers.KerasTensor{enc, dec}, []*layers.KerasTensor{y})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// reversal: the decoder, fed the target shifted by one step (teacher
// forcing), learns to output the encoder's sequence reversed, which it
// can only do from the states it is given.
func reversal(n, steps int, seed uint64) (keras.Arrays, keras.Array) {
	rng := rand.New(rand.NewPCG(seed, 4))
	enc := keras.Array{Shape: []int{n, steps, 1}, Data: make([]float32, n*steps)}
	dec := keras.Array{Shape: []int{n, steps, 1}, Data: make([]float32, n*steps)}
	y := keras.Array{Shape: []int{n, steps, 1}, Data: make([]float32, n*steps)}
	for i := range n {
		for t := range steps {
			enc.Data[i*steps+t] = float32(rng.Float64()*2 - 1)
		}
		for t := range steps {
			y.Data[i*steps+t] = enc.Data[i*steps+steps-1-t]
			if t > 0 {
				dec.Data[i*steps+t] = y.Data[i*steps+t-1]
			}
		}
	}
	return keras.Arrays{enc, dec}, y
}

// An encoder-decoder trains on every engine: the decoder reverses the
// encoder's sequence from its states, with a loss well under the 0.33 of
// predicting zeros; saved and loaded, it predicts the same, and its
// config records the states as Keras does ([lstm, 0, 1] and [lstm, 0, 2]).
func TestReturnStateEncoderDecoder(t *testing.T) {
	x, y := reversal(600, 5, 1)
	xv, yv := reversal(200, 5, 2)
	for _, spec := range backendtest.Engines() {
		t.Run(spec, func(t *testing.T) {
			m := seq2seq(t, 5)
			if err := m.Compile(keras.CompileOptions{Optimizer: optimizers.NewAdam(0.01, 0.9, 0.999, 1e-7), Loss: keras.Loss("mse"), Backend: spec, Seed: 1}); err != nil {
				if strings.Contains(err.Error(), "built without") {
					t.Skip(err)
				}
				t.Fatal(err)
			}
			ctx := context.Background()
			if _, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 15, BatchSize: 32, Verbose: keras.Silent, Seed: 2}); err != nil {
				t.Fatal(err)
			}
			logs, err := m.Evaluate(ctx, xv, yv, keras.EvaluateOptions{Verbose: keras.Silent})
			if err != nil {
				t.Fatal(err)
			}
			loss, _ := logs.Get("loss")
			t.Logf("%s: held-out mse %.4f", spec, loss)
			if loss > 0.1 {
				t.Errorf("held-out mse %.4f: the decoder did not learn from the encoder's states", loss)
			}
			path := filepath.Join(t.TempDir(), "s2s.keras")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			cfg := string(unzip(t, path)["config.json"])
			for _, want := range []string{`"keras_history":["lstm",0,1]`, `"keras_history":["lstm",0,2]`, `"return_state":true`} {
				if !strings.Contains(strings.ReplaceAll(cfg, " ", ""), want) {
					t.Errorf("config.json lacks %s", want)
				}
			}
			loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: spec})
			if err != nil {
				t.Fatal(err)
			}
			a, err := m.Predict(ctx, xv, keras.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := loaded.Predict(ctx, xv, keras.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if d := maxDiff(a.Data, b.Data); d > 1e-6 {
				t.Errorf("predictions differ by %g after loading", d)
			}
		})
	}
}

// A model may output an LSTM's states: its h equals its output (Keras's
// LSTM returns h), and Summary connects the states by tensor index.
func TestReturnStateOutputs(t *testing.T) {
	in := layers.Input(4, 2)
	outs := layers.ApplyOutputs(&layers.LSTM{Units: 3, ReturnState: true}, in)
	if len(outs) != 3 || !outs[1].Shape().Equal(outs[2].Shape()) || outs[2].OutputIndex() != 2 {
		t.Fatalf("outputs %v", outs)
	}
	gru := layers.ApplyOutputs(&layers.GRU{Units: 2, ReturnState: true, ReturnSequences: true}, in)
	sum := layers.Apply(&layers.Add{}, outs[1], outs[2])
	m, err := keras.NewFunctional([]*layers.KerasTensor{in}, []*layers.KerasTensor{outs[0], outs[1], sum, gru[1]})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Seed: 3}); err != nil {
		t.Fatal(err)
	}
	s, err := m.Summary()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s, "lstm[0][1]") || !strings.Contains(s, "lstm[0][2]") {
		t.Errorf("summary does not connect the states:\n%s", s)
	}
	x := keras.Array{Shape: []int{2, 4, 2}, Data: []float32{0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, -0.8, 0.2, 0.2, -0.1, 0.9, 0.3, -0.3, 0.5, 0.1}}
	preds, err := m.PredictOutputs(context.Background(), x, keras.PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff(preds[0].Data, preds[1].Data); d != 0 {
		t.Errorf("the LSTM's h %v differs from its output %v", preds[1].Data, preds[0].Data)
	}
	if got := m.OutputNames(); strings.Join(got, ",") != "lstm,lstm_1,add,gru_1" {
		t.Errorf("output names %v", got)
	}
	if err := layers.Apply(&layers.Bidirectional{Layer: &layers.LSTM{Units: 2, ReturnState: true}}, in).Err(); err == nil || !strings.Contains(err.Error(), "ReturnState, which Bidirectional does not support yet") {
		t.Errorf("Bidirectional over ReturnState: %v", err)
	}
}

// Outputs whose names would collide (a state named lstm_1 beside a layer
// named lstm_1) are an error that says how to fix it.
func TestOutputNamesCollide(t *testing.T) {
	in := layers.Input(4, 2)
	outs := layers.ApplyOutputs(&layers.LSTM{Units: 3, ReturnState: true}, in)
	other := layers.Apply(layers.Named("lstm_1", &layers.LSTM{Units: 3}), in)
	_, err := keras.NewFunctional([]*layers.KerasTensor{in}, []*layers.KerasTensor{outs[1], other})
	wantErr(t, err, `two outputs are named "lstm_1"`, "layers.Named")
}
