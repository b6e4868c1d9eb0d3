// Command charlm is Keras's example "Character-level text generation
// with LSTM" (keras.io/examples/generative/lstm_character_level_text_generation)
// on text it generates, written for text of any length: an LSTM reads
// windows of characters of several lengths (an input of unknown length,
// Keras's None) and learns the next character at every position; then a
// one-step model that shares its layers carries the LSTM's state from
// character to character, so that it writes text of any length with one
// compiled step, each character drawn from the model's distribution
// sharpened by a temperature (the page's "diversity").
//
//	go run ./examples/charlm -epochs 10
//
// The page trains on Nietzsche's writing (not downloaded here) with
// windows of 40 characters and prints 400 generated characters at four
// temperatures; this program's text comes from a small grammar, and it
// prints its held-out next-character accuracy, the share of generated
// words that are words of the grammar, and a generated text.
package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// The grammar's words, and its characters: the letters they use, space
// and the full stop.
var (
	subjects = []string{"the cat", "a dog", "my friend", "the old man", "every child"}
	verbs    = []string{"sees", "likes", "finds", "follows", "helps"}
	objects  = []string{"the river", "a red ball", "the small bird", "her garden", "the moon"}
	chars    = alphabet()
)

func alphabet() string {
	seen := map[rune]bool{' ': true, '.': true}
	for _, ws := range [][]string{subjects, verbs, objects} {
		for _, w := range ws {
			for _, c := range w {
				seen[c] = true
			}
		}
	}
	var b strings.Builder
	for c := rune(' '); c <= 'z'; c++ {
		if seen[c] {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// text returns n sentences of the grammar as running text.
func text(n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 13))
	pick := func(ws []string) string { return ws[r.IntN(len(ws))] }
	var b strings.Builder
	for range n {
		fmt.Fprintf(&b, "%s %s %s. ", pick(subjects), pick(verbs), pick(objects))
	}
	return b.String()
}

// oneHot encodes windows of text as (windows, steps, characters).
func oneHot(windows []string) keras.Array {
	steps, k := len(windows[0]), len(chars)
	a := keras.Array{Shape: []int{len(windows), steps, k}, Data: make([]float32, len(windows)*steps*k)}
	for i, w := range windows {
		for s, c := range w {
			a.Data[(i*steps+s)*k+strings.IndexRune(chars, c)] = 1
		}
	}
	return a
}

// windowBatches are the page's windows (a step of 3 characters), cut in
// batches of one length each, the lengths taking turns: x is a window
// and y the same window shifted by one character, so that every position
// learns the next character.
type windowBatches struct {
	text    string
	lengths []int
	size    int
}

// Len returns the number of batches.
func (w windowBatches) Len() int { return (len(w.text) - 64) / (3 * w.size) }

// Batch returns batch i.
func (w windowBatches) Batch(_ context.Context, i int) (keras.Batch, error) {
	steps := w.lengths[i%len(w.lengths)]
	xs, ys := make([]string, w.size), make([]string, w.size)
	for j := range w.size {
		start := (i*w.size + j) * 3
		xs[j], ys[j] = w.text[start:start+steps], w.text[start+1:start+steps+1]
	}
	return keras.Batch{X: oneHot(xs), Y: oneHot(ys)}, nil
}

// models are the training model and the one-step model that shares its
// layers.
type models struct {
	train, step *keras.Model
	units       int
}

func newModels(units int) (models, error) {
	k := len(chars)
	lstm := &layers.LSTM{Units: units, ReturnSequences: true, ReturnState: true}
	dense := &layers.Dense{Units: k, Activation: "softmax"}
	in := layers.Input(-1, k) // windows of any length
	outs := layers.ApplyOutputs(lstm, in)
	m := models{units: units}
	var err error
	if m.train, err = keras.NewFunctional([]*layers.KerasTensor{in}, []*layers.KerasTensor{layers.Apply(dense, outs[0])}); err != nil {
		return m, err
	}
	char := layers.Input(1, k)
	h, c := layers.Input(units), layers.Input(units)
	stepOuts := layers.ApplyOutputs(lstm, char, h, c)
	m.step, err = keras.NewFunctional([]*layers.KerasTensor{char, h, c}, []*layers.KerasTensor{layers.Apply(dense, stepOuts[0]), stepOuts[1], stepOuts[2]})
	return m, err
}

// sample is the page's sample: a character drawn from probs sharpened by
// the temperature.
func sample(probs []float32, temperature float64, r *rand.Rand) int {
	weights := make([]float64, len(probs))
	total := 0.0
	for i, p := range probs {
		weights[i] = math.Exp(math.Log(float64(p)+1e-12) / temperature)
		total += weights[i]
	}
	u := r.Float64() * total
	for i, w := range weights {
		if u -= w; u <= 0 {
			return i
		}
	}
	return len(weights) - 1
}

// generate writes n characters after the seed text, one step at a time,
// the LSTM's state carried from each character to the next.
func generate(ctx context.Context, m models, seed string, n int, temperature float64, r *rand.Rand) (string, error) {
	k := len(chars)
	h := keras.Array{Shape: []int{1, m.units}, Data: make([]float32, m.units)}
	c := keras.Array{Shape: []int{1, m.units}, Data: make([]float32, m.units)}
	var out strings.Builder
	var probs []float32
	feed := func(ch byte) error {
		x := oneHot([]string{string(ch)})
		res, err := m.step.PredictOutputs(ctx, keras.Arrays{x, h, c}, keras.PredictOptions{})
		if err != nil {
			return err
		}
		probs, h, c = res[0].Data[:k], res[1], res[2]
		return nil
	}
	for i := range len(seed) {
		if err := feed(seed[i]); err != nil {
			return "", err
		}
	}
	for range n {
		next := chars[sample(probs, temperature, r)]
		out.WriteByte(next)
		if err := feed(next); err != nil {
			return "", err
		}
	}
	return out.String(), nil
}

// result is what a run measured.
type result struct {
	loss     []float64
	accuracy float64 // held-out next characters predicted (most likely) right
	words    float64 // share of generated words that are words of the grammar
	sample   string
}

func run(ctx context.Context, o example.Options, units, generated int) (result, error) {
	m, err := newModels(units)
	if err != nil {
		return result{}, err
	}
	if err := m.train.Compile(keras.CompileOptions{Optimizer: &optimizers.RMSprop{LearningRate: 0.01}, Loss: keras.Loss("categorical_crossentropy"),
		Metrics: keras.Metrics("accuracy"), Backend: o.Backend, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	train := windowBatches{text: text(o.Train, uint64(o.Seed)), lengths: []int{20, 30, 40}, size: 32}
	h, err := m.train.Fit(ctx, keras.Batches{Dataset: train}, nil, keras.FitOptions{Epochs: o.Epochs, Verbose: o.Verbose, Seed: o.Seed})
	if err != nil {
		return result{}, err
	}
	test := windowBatches{text: text(o.Test, uint64(o.Seed)+1), lengths: []int{40}, size: 32}
	logs, err := m.train.Evaluate(ctx, keras.Batches{Dataset: test}, nil, keras.EvaluateOptions{Verbose: keras.Silent})
	if err != nil {
		return result{}, err
	}
	r := result{loss: h.Logs["loss"]}
	r.accuracy, _ = logs.Get("accuracy")
	if err := m.step.Compile(keras.CompileOptions{Backend: o.Backend}); err != nil { // it shares the trained layers
		return result{}, err
	}
	if r.sample, err = generate(ctx, m, "the cat sees the moon. ", generated, 0.5, rand.New(rand.NewPCG(uint64(o.Seed), 17))); err != nil {
		return result{}, err
	}
	known := map[string]bool{}
	for _, ws := range [][]string{subjects, verbs, objects} {
		for _, w := range ws {
			for _, f := range strings.Fields(w) {
				known[f] = true
			}
		}
	}
	words := strings.Fields(strings.ReplaceAll(r.sample, ".", " "))
	if len(words) > 1 {
		words = words[1 : len(words)-1] // the first and last may be cut
	}
	good := 0
	for _, w := range words {
		if known[w] {
			good++
		}
	}
	r.words = float64(good) / float64(max(1, len(words)))
	return r, nil
}

func main() {
	o := example.ParseFlags(10, 2000, 200)
	r, err := run(context.Background(), o, 128, 400)
	example.Exit("charlm", err)
	fmt.Printf("held-out next-character accuracy %.3f; %.2f of generated words are the grammar's\n%s\n", r.accuracy, r.words, r.sample)
}
