package keras_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/utils"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// reviews is a small sentiment corpus: a review is positive (1) when it
// has more of the good words than of the bad ones.
func reviews(n int) (keras.Array, keras.Array) {
	good := []string{"great", "Wonderful!", "loved", "superb,", "fun"}
	bad := []string{"awful", "boring.", "hated", "dull", "WORST"}
	filler := []string{"the", "movie", "was", "and", "plot", "acting", "a", "it"}
	texts := make([]string, n)
	labels := make([]float32, n)
	for i := range n {
		var words []string
		pos := i%2 == 0
		for k := range 3 + i%5 {
			words = append(words, filler[(i*7+k*3)%len(filler)])
			if k%2 == 0 {
				if pos {
					words = append(words, good[(i+k)%len(good)])
				} else {
					words = append(words, bad[(i+k)%len(bad)])
				}
			}
		}
		texts[i] = strings.Join(words, " ")
		if pos {
			labels[i] = 1
		}
	}
	x, _ := keras.NewStringArray(texts)
	y, _ := keras.NewArray(labels, n, 1)
	return x, y
}

// textModel is Keras's "text classification from scratch" in small: an
// adapted TextVectorization on raw strings, an Embedding, a pooling and a
// sigmoid.
func textModel(t *testing.T, x keras.ArraySet, seqLen int) (*keras.Model, *layers.TextVectorization) {
	t.Helper()
	tv := &layers.TextVectorization{MaxTokens: 40, OutputSequenceLength: seqLen}
	if err := keras.Adapt(context.Background(), tv, x); err != nil {
		t.Fatal(err)
	}
	in := layers.StringInput(1)
	h := layers.Apply(tv, in)
	h = layers.Apply(&layers.Embedding{InputDim: 40, OutputDim: 8}, h)
	h = layers.Apply(&layers.GlobalAveragePooling1D{}, h)
	out := layers.Apply(&layers.Dense{Units: 1, Activation: "sigmoid"}, h)
	m, err := keras.NewModel(in, out)
	if err != nil {
		t.Fatal(err)
	}
	return m, tv
}

// TestTextModelTrainsSavesAndPredictsFromStrings is the text
// test: a model with a TextVectorization layer trains on raw strings,
// saves its vocabulary as Keras does, and after LoadModel predicts from
// raw strings the same, on every engine.
func TestTextModelTrainsSavesAndPredictsFromStrings(t *testing.T) {
	x, y := reviews(64)
	x = keras.Array{Shape: []int{64, 1}, Strings: x.Strings}
	ctx := context.Background()
	var engines []string
	for _, spec := range backendtest.Engines() {
		if be, err := backend.Open(spec); err == nil {
			be.Close()
			engines = append(engines, spec)
		}
	}
	for _, seqLen := range []int{12, 0} { // fixed, and padded to each batch's longest
		backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
			m, tv := textModel(t, x, seqLen)
			if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("binary_crossentropy"), Metrics: keras.Metrics("accuracy"), Backend: be.Name(), Seed: 5}); err != nil {
				t.Fatal(err)
			}
			h, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: 30, BatchSize: 16, Seed: 5, Verbose: keras.Silent})
			if err != nil {
				t.Fatal(err)
			}
			if acc := h.Logs["accuracy"]; acc[len(acc)-1] < 0.9 {
				t.Fatalf("accuracy %v after training: the model did not learn the words", acc)
			}
			path := filepath.Join(t.TempDir(), "text.keras")
			if err := m.Save(path); err != nil {
				t.Fatal(err)
			}
			want, err := m.Predict(ctx, x, keras.PredictOptions{BatchSize: 16})
			if err != nil {
				t.Fatal(err)
			}
			for _, spec := range engines {
				back, err := keras.LoadModel(path, keras.LoadOptions{Backend: spec})
				if err != nil {
					t.Fatalf("loading on %s: %v", spec, err)
				}
				var loaded *layers.TextVectorization
				for _, l := range back.Layers() {
					if v, ok := l.(*layers.TextVectorization); ok {
						loaded = v
					}
				}
				if got, saved := strings.Join(loaded.GetVocabulary(), "|"), strings.Join(tv.GetVocabulary(), "|"); got != saved {
					t.Fatalf("loaded on %s, the vocabulary is %q, saved %q", spec, got, saved)
				}
				got, err := back.Predict(ctx, x, keras.PredictOptions{BatchSize: 16})
				if err != nil {
					t.Fatal(err)
				}
				for i := range want.Data {
					if math.Abs(float64(got.Data[i]-want.Data[i])) > 1e-5 {
						t.Fatalf("loaded on %s, prediction %d is %v, before saving %v", spec, i, got.Data[i], want.Data[i])
					}
				}
			}
		})
	}
}

// A model with a host stage is safe for concurrent use: goroutines
// predicting from strings at once (each running the TextVectorization on
// its batches) get what one prediction alone gets. Run with -race.
func TestConcurrentPredictFromStrings(t *testing.T) {
	x, _ := reviews(48)
	x = keras.Array{Shape: []int{48, 1}, Strings: x.Strings}
	m, _ := textModel(t, x, 0)
	ctx := context.Background()
	want, err := m.Predict(ctx, x, keras.PredictOptions{BatchSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 6)
	for range 6 {
		go func() {
			got, err := m.Predict(ctx, x, keras.PredictOptions{BatchSize: 8})
			if err == nil {
				for i := range want.Data {
					if got.Data[i] != want.Data[i] {
						err = fmt.Errorf("prediction %d is %v, alone %v", i, got.Data[i], want.Data[i])
						break
					}
				}
			}
			errs <- err
		}()
	}
	for range 6 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// Keras's text classification workflow on a folder: texts read with
// TextDatasetFromDirectory, a TextVectorization adapted on the dataset's
// texts, and a model on raw strings trained and evaluated from the
// dataset's batches (the (batch,) texts feed a (batch, 1) input, as in
// Keras).
func TestFitOnTextDataset(t *testing.T) {
	x, y := reviews(60)
	root := t.TempDir()
	for i, text := range x.Strings {
		class := "neg"
		if y.Data[i] == 1 {
			class = "pos"
		}
		dir := filepath.Join(root, class)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("review_%02d.txt", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	train, val, err := utils.TextDatasetsFromDirectory(root, utils.TextDatasetOptions{BatchSize: 8, ValidationSplit: 0.2, Seed: 4, LabelMode: "binary", Verbose: keras.Silent})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(train.ClassNames, []string{"neg", "pos"}) {
		t.Fatalf("classes %v", train.ClassNames)
	}
	ctx := context.Background()
	m, _ := textModel(t, keras.Batches{Dataset: train, Workers: 2}, 10)
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("binary_crossentropy"), Metrics: keras.Metrics("accuracy"), Seed: 2}); err != nil {
		t.Fatal(err)
	}
	hist, err := m.Fit(ctx, keras.Batches{Dataset: train, Workers: 2}, nil, keras.FitOptions{Epochs: 40, Verbose: keras.Silent, ValidationData: &keras.Data{X: keras.Batches{Dataset: val}}})
	if err != nil {
		t.Fatal(err)
	}
	if acc := hist.Logs["val_accuracy"]; acc[len(acc)-1] < 0.9 {
		t.Fatalf("validation accuracy %v: the model did not learn from the folder", acc)
	}
}
