package keras_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// Keras's "Embedding + LSTM" text classifier has Keras's parameter counts:
// Embedding(10000, 128) 1,280,000, LSTM(64) 49,408, Dense(1) 65;
// 1,329,473 in all.
func TestEmbeddingLSTMSummary(t *testing.T) {
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{200}}, &layers.Embedding{InputDim: 10000, OutputDim: 128}, &layers.LSTM{Units: 64},
		&layers.Dense{Units: 1, Activation: "sigmoid"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := m.Summary()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"embedding (Embedding)", "(None, 200, 128)", "1,280,000", "lstm (LSTM)", "(None, 64)", "49,408", "Total params: 1,329,473 "} {
		if !strings.Contains(s, want) && !strings.Contains(s, strings.ReplaceAll(want, ",", "")) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	if m.CountParams() != 1329473 {
		t.Errorf("CountParams = %d, Keras gives 1329473", m.CountParams())
	}
}

// Token ids outside [0, input_dim), or not integers, are an error naming
// the layer, the sample and the id before any step runs.
func TestEmbeddingRejectsBadIds(t *testing.T) {
	m, err := keras.NewSequential(&layers.InputLayer{Shape: []int{3}}, &layers.Embedding{InputDim: 10, OutputDim: 2}, &layers.Flatten{}, &layers.Dense{Units: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("mse")}); err != nil {
		t.Fatal(err)
	}
	y := keras.Array{Shape: []int{2, 1}, Data: []float32{0, 1}}
	for _, c := range []struct {
		bad  float32
		want string
	}{{10, "sample 1 holds token id 10 at position 2"}, {-1, "token id -1"}, {2.5, "token id 2.5"}} {
		x := keras.Array{Shape: []int{2, 3}, Data: []float32{1, 2, 3, 4, 5, c.bad}}
		_, err := m.Fit(context.Background(), x, y, keras.FitOptions{Verbose: keras.Silent, Epochs: 1})
		wantErr(t, err, `layer "embedding" (Embedding)`, c.want, "[0, 10) (input_dim)")
		_, err = m.Predict(context.Background(), x, keras.PredictOptions{})
		wantErr(t, err, `layer "embedding" (Embedding)`, c.want)
	}
}

// Token ids above 2^24 reach the table exactly through an int input
// (layers.IntInput and Array.Ints), on every engine; in float data they
// are an error that says to use IntInput, never a rounded id.
func TestEmbeddingIdsAbove2To24(t *testing.T) {
	const vocab = 1<<24 + 8
	ids := keras.Array{Shape: []int{1, 4}, Ints: []int32{1<<24 + 1, 1<<24 + 2, 1<<24 + 3, 5}}
	for _, spec := range backendtest.Engines() {
		t.Run(spec, func(t *testing.T) {
			in := layers.IntInput(4)
			out := layers.Apply(&layers.Flatten{}, layers.Apply(&layers.Embedding{InputDim: vocab, OutputDim: 1}, in))
			m, err := keras.NewModel(in, out)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse"), Backend: spec}); err != nil {
				if strings.Contains(err.Error(), "built without") {
					t.Skip(err)
				}
				t.Fatal(err)
			}
			table := make([]float32, vocab)
			for i := range table {
				table[i] = float32(i % 1000)
			}
			if err := m.SetWeights([][]float32{table}); err != nil {
				t.Fatal(err)
			}
			got, err := m.Predict(context.Background(), ids, keras.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want := []float32{(1<<24 + 1) % 1000, (1<<24 + 2) % 1000, (1<<24 + 3) % 1000, 5}
			if maxDiff(got.Data, want) != 0 {
				t.Errorf("rows %v, want %v", got.Data, want)
			}
		})
	}
	// The same ids as floats into a float input.
	in := layers.Input(4)
	m, err := keras.NewModel(in, layers.Apply(&layers.Embedding{InputDim: vocab, OutputDim: 1}, in))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.SGD{}, Loss: keras.Loss("mse")}); err != nil {
		t.Fatal(err)
	}
	_, err = m.Predict(context.Background(), keras.Array{Shape: []int{1, 4}, Data: []float32{1 << 24, 2, 3, 4}}, keras.PredictOptions{})
	wantErr(t, err, "token id 1.6777216e+07", "make the input with layers.IntInput")
	_, err = m.Predict(context.Background(), ids, keras.PredictOptions{})
	wantErr(t, err, "float32 cannot hold exactly", "layers.IntInput")
}

// A model whose input is token ids (Keras's Input(dtype="int32")) saves
// the dtype as Keras does and loads back with it; another dtype is an
// error naming it.
func TestIntInputSaveLoad(t *testing.T) {
	in := layers.IntInput(6)
	x := layers.Apply(&layers.Embedding{InputDim: 50, OutputDim: 4}, in)
	out := layers.Apply(&layers.Dense{Units: 1}, layers.Apply(&layers.GlobalAveragePooling1D{}, x))
	m, err := keras.NewModel(in, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("mse"), Seed: 1}); err != nil {
		t.Fatal(err)
	}
	ids := keras.Array{Shape: []int{2, 6}, Data: []float32{1, 2, 3, 4, 5, 49, 0, 7, 7, 7, 8, 9}}
	y := keras.Array{Shape: []int{2, 1}, Data: []float32{0, 1}}
	if _, err := m.Fit(context.Background(), ids, y, keras.FitOptions{Epochs: 2, Verbose: keras.Silent}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ids.keras")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	cfg := string(unzip(t, path)["config.json"])
	if !strings.Contains(cfg, `"dtype":"int32"`) && !strings.Contains(cfg, `"dtype": "int32"`) {
		t.Errorf("config.json does not record the int32 input: %s", cfg)
	}
	loaded, err := keras.LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := loaded.Layers()[0].(*layers.InputLayer).DType; got != backend.Int32 {
		t.Errorf("loaded input dtype %v, want int32", got)
	}
	a, _ := m.Predict(context.Background(), ids, keras.PredictOptions{})
	b, err := loaded.Predict(context.Background(), ids, keras.PredictOptions{})
	if err != nil || maxDiff(a.Data, b.Data) != 0 {
		t.Errorf("loaded model predicts %v (%v), the saved one %v", b.Data, err, a.Data)
	}
	bad := &layers.InputLayer{Shape: []int{3}, DType: backend.Float64}
	if _, err := bad.Build(nil); err == nil || !strings.Contains(err.Error(), `input dtype float64 is not supported`) {
		t.Errorf("float64 input: %v", err)
	}
	if _, err := backend.ParseDType("float16"); err == nil || !strings.Contains(err.Error(), `no dtype "float16"`) {
		t.Errorf("ParseDType(float16): %v", err)
	}
}
