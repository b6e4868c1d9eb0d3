package transformer_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/textdata"
	"github.com/kerasgo/kerasgo/examples/transformer"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// Keras's example has 657,758 parameters: the embeddings 646,400 (20,000
// x 32 tokens + 200 x 32 positions), the transformer block 10,656
// (attention 8,416, feed-forward 2,112, two LayerNormalizations 128), the
// classifier 660 + 42.
func TestKerasExampleParameterCount(t *testing.T) {
	m, err := transformer.NewClassifier(transformer.KerasExample)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.CountParams(); got != 657758 {
		t.Errorf("CountParams = %d, Keras's example has 657758", got)
	}
	s, err := m.Summary()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"multi_head_attention (MultiHead", "(None, 200, 32)", "8416", "646400"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

var small = transformer.Config{MaxLen: 24, VocabSize: 300, EmbedDim: 16, NumHeads: 2, FFDim: 16, Classes: 2}

// The classifier learns the reviews on every engine, and a trained model
// saved to .keras (custom layer, attention called with two inputs) loads
// and predicts the same.
func TestClassifierLearnsAndSaves(t *testing.T) {
	x, y := textdata.Reviews(1500, small.MaxLen, small.VocabSize, 1)
	xt, yt := textdata.Reviews(400, small.MaxLen, small.VocabSize, 2)
	for _, spec := range backendtest.Engines() {
		t.Run(spec, func(t *testing.T) {
			m, err := transformer.NewClassifier(small)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("sparse_categorical_crossentropy"), Metrics: keras.Metrics("accuracy"), Backend: spec, Seed: 2}); err != nil {
				if strings.Contains(err.Error(), "built without") {
					t.Skip(err)
				}
				t.Fatal(err)
			}
			ctx := context.Background()
			if _, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 6, BatchSize: 32, Verbose: keras.Silent, Seed: 3}); err != nil {
				t.Fatal(err)
			}
			logs, err := m.Evaluate(ctx, xt, yt, keras.EvaluateOptions{Verbose: keras.Silent})
			if err != nil {
				t.Fatal(err)
			}
			acc, _ := logs.Get("accuracy")
			t.Logf("%s: test accuracy %.3f", spec, acc)
			if acc < 0.8 {
				t.Errorf("test accuracy %.3f, want at least 0.8", acc)
			}
			path := filepath.Join(t.TempDir(), "transformer.keras")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: spec})
			if err != nil {
				t.Fatal(err)
			}
			a, err := m.Predict(ctx, xt, keras.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := loaded.Predict(ctx, xt, keras.PredictOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range a.Data {
				if d := a.Data[i] - b.Data[i]; d > 1e-6 || d < -1e-6 {
					t.Fatalf("prediction %d: %v before saving, %v after loading", i, a.Data[i], b.Data[i])
				}
			}
		})
	}
}
