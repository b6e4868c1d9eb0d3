package keras_test

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// newTiedLM is a language model whose ReversibleEmbedding embeds the ids
// and projects a Dense layer's states back to the vocabulary of 7 with
// the same matrix.
func newTiedLM(t *testing.T, be backend.Backend, cap float64) (*keras.Model, *layers.ReversibleEmbedding, *layers.Dense) {
	t.Helper()
	emb := &layers.ReversibleEmbedding{Embedding: layers.Embedding{InputDim: 7, OutputDim: 3}, LogitSoftCap: cap}
	dense := &layers.Dense{Units: 3, Activation: "tanh"}
	in := layers.IntInput(4)
	logits := emb.Reverse(layers.Apply(dense, layers.Apply(emb, in)))
	m := keras.Must(keras.NewModel(in, logits))
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.05}, Loss: keras.LossOf(lossFromLogits()),
		Backend: be.Name(), Seed: 3}); err != nil {
		t.Fatal(err)
	}
	return m, emb, dense
}

// lmData is next-token ids: each sample's targets are its ids shifted by
// one (mod 7).
func lmData(n int) (keras.Array, keras.Array) {
	x := keras.Array{Shape: []int{n, 4}, Ints: make([]int32, n*4)}
	y := keras.Array{Shape: []int{n, 4}, Data: make([]float32, n*4)}
	for i := range x.Ints {
		x.Ints[i] = int32((i*3 + i/4) % 7)
		y.Data[i] = float32((x.Ints[i] + 1) % 7)
	}
	return x, y
}

// The reverse call is the states times the transposed embeddings (soft
// capped), tied: one matrix, trained by both calls, saved once and
// loaded back to the same predictions.
func TestReversibleEmbeddingTiesTheProjection(t *testing.T) {
	ctx := context.Background()
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		const cap = 2.0
		m, _, _ := newTiedLM(t, be, cap)
		if got, want := m.CountParams(), 7*3+3*3+3; got != want {
			t.Errorf("CountParams = %d, want %d (one embeddings matrix and the Dense)", got, want)
		}
		x, y := lmData(16)
		before, _ := m.GetWeights()
		if _, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 3, BatchSize: 4, Verbose: keras.Silent}); err != nil {
			t.Fatal(err)
		}
		after, _ := m.GetWeights()
		if slices.Equal(before[0], after[0]) {
			t.Error("training left the embeddings as they were")
		}
		pred, err := m.Predict(ctx, x, keras.PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// By hand: E[id] -> tanh(· K + b) -> cap·tanh((h Eᵀ)/cap).
		e, k, bias := after[0], after[1], after[2]
		worst := 0.0
		for s, id := range x.Ints {
			h := make([]float64, 3)
			for j := range 3 {
				v := float64(bias[j])
				for i := range 3 {
					v += float64(e[int(id)*3+i]) * float64(k[i*3+j])
				}
				h[j] = math.Tanh(v)
			}
			for w := range 7 {
				l := 0.0
				for j := range 3 {
					l += h[j] * float64(e[w*3+j])
				}
				want := cap * math.Tanh(l/cap)
				worst = max(worst, math.Abs(want-float64(pred.Data[s*7+w])))
			}
		}
		if worst > 1e-5 {
			t.Errorf("the reverse call's logits differ from cap·tanh(h·Eᵀ/cap) by up to %g", worst)
		}
		path := filepath.Join(t.TempDir(), "lm.keras")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: be.Name()})
		if err != nil {
			t.Fatal(err)
		}
		again, err := loaded.Predict(ctx, x, keras.PredictOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(pred.Data, again.Data) {
			t.Error("the loaded model predicts otherwise than the saved one")
		}
	})
}

// A reverse call on vectors of the wrong size, call arguments a layer
// does not take, and a reverse call's float input that the id check
// must leave alone.
func TestReversibleEmbeddingErrors(t *testing.T) {
	emb := &layers.ReversibleEmbedding{Embedding: layers.Embedding{InputDim: 7, OutputDim: 3}}
	bad := emb.Reverse(layers.Input(4, 5))
	if err := bad.Err(); err == nil || !strings.Contains(err.Error(), "output_dim 3") || !strings.Contains(err.Error(), "(batch, ..., 3)") {
		t.Errorf("reverse call on (4, 5) vectors: %v, want an error naming output_dim 3 and the shape it takes", err)
	}
	args := layers.ApplyWithArguments(&layers.Dense{Units: 2}, map[string]any{"reverse": true}, layers.Input(3))
	if err := args.Err(); err == nil || !strings.Contains(err.Error(), "takes none") {
		t.Errorf("Dense with call arguments: %v, want an error saying it takes none", err)
	}
	unknown := layers.ApplyWithArguments(emb, map[string]any{"inverse": true}, layers.IntInput(4))
	if err := unknown.Err(); err == nil || !strings.Contains(err.Error(), "inverse") || !strings.Contains(err.Error(), "reverse=true or false") {
		t.Errorf("an unknown call argument: %v, want an error naming it and the one the layer takes", err)
	}
	// Hidden states fed straight from an input: the reverse call's floats
	// are not token ids.
	h := layers.Input(4, 3)
	m := keras.Must(keras.NewModel(h, emb.Reverse(h)))
	if err := m.Compile(keras.CompileOptions{Loss: keras.Loss("mse")}); err != nil {
		t.Fatal(err)
	}
	x := keras.Array{Shape: []int{1, 4, 3}, Data: []float32{0.5, -1.5, 2, 0, 0.25, 9, 1, 1, 1, -3, 0.5, 0.5}}
	if _, err := m.Predict(context.Background(), x, keras.PredictOptions{}); err != nil {
		t.Errorf("a reverse call fed hidden states from an input: %v", err)
	}
}
