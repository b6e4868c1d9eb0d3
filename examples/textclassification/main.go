// Command textclassification follows Keras's example "Text
// classification from scratch" (keras.io/examples/nlp/
// text_classification_from_scratch) on a folder of reviews it writes
// itself, since the example's IMDB download is not at hand: short English
// reviews, positive or negative by their words, one .txt file per review
// in a sub-folder per class. As the Keras example it reads the folder
// with TextDatasetFromDirectory (an 80/20 split with a seed), adapts a
// TextVectorization layer on the training texts, and trains a 1-D
// convnet on top of it. The vectorization is part of the model, so the
// model takes raw strings: it is saved, loaded back, and asked about new
// sentences, as the example's end-to-end model is.
//
//	go run ./examples/textclassification -epochs 8
//	go run ./examples/textclassification -data ./reviews   # keep the folder
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/utils"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// The reviews' words: a review is positive when its sentiment words are
// mostly positive.
var (
	positive = []string{"great", "wonderful", "moving", "brilliant", "funny", "superb", "loved", "beautiful", "clever", "gripping"}
	negative = []string{"boring", "awful", "dull", "terrible", "weak", "predictable", "hated", "messy", "tedious", "bland"}
	neutral  = []string{"the", "movie", "film", "plot", "actors", "story", "was", "and", "with", "a", "ending", "director",
		"scenes", "music", "it", "felt", "quite", "really", "this", "cast", "script", "camera", "second", "half"}
)

// review writes one review: sentences of neutral words with sentiment
// words in them, most of them of the review's class.
func review(rng *rand.Rand, pos bool) string {
	var b strings.Builder
	for range 2 + rng.IntN(4) {
		n := 6 + rng.IntN(8)
		for k := range n {
			w := neutral[rng.IntN(len(neutral))]
			if rng.IntN(4) == 0 {
				words := negative
				if pos == (rng.IntN(5) != 0) { // one sentiment word in five is of the other class
					words = positive
				}
				w = words[rng.IntN(len(words))]
			}
			if k == 0 {
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			b.WriteString(w)
			if k < n-1 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(". ")
	}
	return b.String()
}

// writeFolder writes n reviews per class into dir/neg and dir/pos.
func writeFolder(dir string, n int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 11))
	for _, class := range []string{"neg", "pos"} {
		if err := os.MkdirAll(filepath.Join(dir, class), 0o755); err != nil {
			return err
		}
		for i := range n {
			text := review(rng, class == "pos")
			if err := os.WriteFile(filepath.Join(dir, class, fmt.Sprintf("%d.txt", i)), []byte(text), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// The Keras example's sizes, smaller: its vocabulary is 20000 words and
// its sequences 500 tokens.
const (
	maxFeatures    = 2000
	sequenceLength = 80
	embeddingDim   = 32
)

// newModel is the Keras example's model with the vectorization in front
// (its "end-to-end model"): raw strings in, the probability of a
// positive review out.
func newModel(vectorize *layers.TextVectorization) (*keras.Model, error) {
	in := layers.StringInput(1)
	x := layers.Apply(vectorize, in)
	x = layers.Apply(&layers.Embedding{InputDim: maxFeatures, OutputDim: embeddingDim}, x)
	x = layers.Apply(&layers.Dropout{Rate: 0.5}, x)
	x = layers.Apply(&layers.Conv1D{Filters: embeddingDim, KernelSize: 7, Strides: 3, Activation: "relu"}, x)
	x = layers.Apply(&layers.Conv1D{Filters: embeddingDim, KernelSize: 7, Strides: 3, Activation: "relu"}, x)
	x = layers.Apply(&layers.GlobalMaxPooling1D{}, x)
	x = layers.Apply(&layers.Dense{Units: embeddingDim, Activation: "relu"}, x)
	x = layers.Apply(&layers.Dropout{Rate: 0.5}, x)
	out := layers.Apply(layers.Named("predictions", &layers.Dense{Units: 1, Activation: "sigmoid"}), x)
	return keras.NewModel(in, out)
}

// result is the validation accuracy and the reloaded model's scores of
// new sentences.
type result struct {
	valAccuracy float64
	sentences   []string
	scores      []float32 // the reloaded model's probabilities that each is positive
	sameScores  bool      // the reloaded model scores the validation texts as the trained one
}

// sentences are new reviews for the saved model.
var sentences = []string{
	"A brilliant and moving film, the cast was superb.",
	"Boring plot, terrible script and a predictable ending.",
}

func run(ctx context.Context, o example.Options, dir string) (result, error) {
	if err := writeFolder(dir, o.Train/2, uint64(o.Seed)); err != nil {
		return result{}, err
	}
	train, val, err := utils.TextDatasetsFromDirectory(dir, utils.TextDatasetOptions{BatchSize: 32, ValidationSplit: 0.2,
		Seed: 1337, Verbose: keras.Silent})
	if err != nil {
		return result{}, err
	}
	// "Prepare the data": the vocabulary from the training texts.
	vectorize := &layers.TextVectorization{MaxTokens: maxFeatures, OutputSequenceLength: sequenceLength}
	if err := keras.Adapt(ctx, vectorize, keras.Batches{Dataset: train, Workers: 2}); err != nil {
		return result{}, err
	}
	m, err := newModel(vectorize)
	if err != nil {
		return result{}, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.Loss("binary_crossentropy"), Metrics: keras.Metrics("accuracy"),
		Backend: o.Backend, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	timer := o.Timer
	if timer == nil {
		timer = &example.Epochs{}
	}
	h, err := m.Fit(ctx, keras.Batches{Dataset: train, Workers: 2}, nil, keras.FitOptions{Epochs: o.Epochs, Verbose: o.Verbose,
		ValidationData: &keras.Data{X: keras.Batches{Dataset: val}}, Callbacks: []callbacks.Callback{timer}, Seed: o.Seed})
	if err != nil {
		return result{}, err
	}
	accs := h.Logs["val_accuracy"]
	r := result{valAccuracy: accs[len(accs)-1], sentences: sentences}

	// The model takes raw strings, so the saved file is all a server needs.
	path := filepath.Join(dir, "text_classifier.keras")
	if err := m.Save(path); err != nil {
		return result{}, err
	}
	loaded, err := keras.LoadModel(path, keras.LoadOptions{Backend: o.Backend, NoCompile: true})
	if err != nil {
		return result{}, err
	}
	x, err := keras.NewStringArray(sentences)
	if err != nil {
		return result{}, err
	}
	scores, err := loaded.Predict(ctx, x, keras.PredictOptions{})
	if err != nil {
		return result{}, err
	}
	r.scores = scores.Data
	before, err := m.Predict(ctx, keras.Batches{Dataset: val}, keras.PredictOptions{})
	if err != nil {
		return result{}, err
	}
	after, err := loaded.Predict(ctx, keras.Batches{Dataset: val}, keras.PredictOptions{})
	if err != nil {
		return result{}, err
	}
	r.sameScores = len(before.Data) == len(after.Data)
	for i := range before.Data {
		r.sameScores = r.sameScores && before.Data[i] == after.Data[i]
	}
	return r, nil
}

func main() {
	data := flag.String("data", "", "folder to write the reviews into (default: a temporary one, removed after)")
	o := example.ParseFlags(8, 2000, 0)
	dir := *data
	if dir == "" {
		tmp, err := os.MkdirTemp("", "reviews")
		example.Exit("textclassification", err)
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	r, err := run(context.Background(), o, dir)
	example.Exit("textclassification", err)
	fmt.Printf("Time per epoch: %.1f s\n", o.Timer.Mean())
	fmt.Printf("Validation accuracy: %.3f\n", r.valAccuracy)
	for i, s := range r.sentences {
		fmt.Printf("%q is %.0f%% positive (the saved model, from the raw string).\n", s, 100*r.scores[i])
	}
}
