// Command seq2seq is Keras's example "Character-level recurrent
// sequence-to-sequence model" (keras.io/examples/nlp/lstm_seq2seq) on a
// task it generates: an encoder LSTM reads a word one character at a time
// and hands its final states to a decoder LSTM, which writes the word
// reversed, fed the target shifted by one step in training (teacher
// forcing). For inference the same layers make two models, an encoder to
// states and a one-step decoder from states, and a loop decodes one
// character at a time until the end mark.
//
//	go run ./examples/seq2seq -epochs 30
//
// The page translates 10,000 English sentences into French (fra.txt, not
// downloaded here) with 256 units for 100 epochs and shows translations;
// this program's words use 8 letters, and it prints the share of held-out
// words decoded exactly.
package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

const (
	letters = "abcdefgh"
	start   = '\t' // the page's start-of-sequence character
	end     = '\n' // and its end
	maxWord = 6
)

// tokens are the characters: the letters, then the start and end marks.
var tokens = letters + string(start) + string(end)

// words returns n random words of 2 to maxWord letters.
func words(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 5))
	out := make([]string, n)
	for i := range out {
		b := make([]byte, 2+r.IntN(maxWord-1))
		for j := range b {
			b[j] = letters[r.IntN(len(letters))]
		}
		out[i] = string(b)
	}
	return out
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// oneHot encodes texts as (n, steps, tokens), padded with zeros.
func oneHot(texts []string, steps int) keras.Array {
	a := keras.Array{Shape: []int{len(texts), steps, len(tokens)}, Data: make([]float32, len(texts)*steps*len(tokens))}
	for i, t := range texts {
		for s, c := range t {
			a.Data[(i*steps+s)*len(tokens)+strings.IndexRune(tokens, c)] = 1
		}
	}
	return a
}

// data is the page's encoder input, decoder input ("\t" + target) and
// decoder target (target + "\n"), one-hot.
func data(ws []string) (keras.Arrays, keras.Array) {
	dec, target := make([]string, len(ws)), make([]string, len(ws))
	for i, w := range ws {
		dec[i] = string(start) + reverse(w)
		target[i] = reverse(w) + string(end)
	}
	return keras.Arrays{oneHot(ws, maxWord), oneHot(dec, maxWord+1)}, oneHot(target, maxWord+1)
}

// models are the training model and the page's inference models, which
// share its layers.
type models struct {
	train, encoder, decoder *keras.Model
}

func newModels(units int) (models, error) {
	n := len(tokens)
	encIn := layers.NamedInput("encoder_inputs", -1, n)
	encOuts := layers.ApplyOutputs(&layers.LSTM{Units: units, ReturnState: true}, encIn)
	decIn := layers.NamedInput("decoder_inputs", -1, n)
	decLSTM := &layers.LSTM{Units: units, ReturnSequences: true, ReturnState: true}
	dense := &layers.Dense{Units: n, Activation: "softmax"}
	decOuts := layers.ApplyOutputs(decLSTM, decIn, encOuts[1], encOuts[2])
	out := layers.Apply(dense, decOuts[0])
	var m models
	var err error
	if m.train, err = keras.NewFunctional([]*layers.KerasTensor{encIn, decIn}, []*layers.KerasTensor{out}); err != nil {
		return m, err
	}
	if m.encoder, err = keras.NewFunctional([]*layers.KerasTensor{encIn}, encOuts[1:]); err != nil {
		return m, err
	}
	stepIn := layers.NamedInput("decoder_step", -1, n)
	h, c := layers.NamedInput("state_h", units), layers.NamedInput("state_c", units)
	stepOuts := layers.ApplyOutputs(decLSTM, stepIn, h, c)
	m.decoder, err = keras.NewFunctional([]*layers.KerasTensor{stepIn, h, c}, []*layers.KerasTensor{layers.Apply(dense, stepOuts[0]), stepOuts[1], stepOuts[2]})
	return m, err
}

// decode is the page's decode_sequence for a batch: the encoder's states,
// then one decoder step at a time from "\t", each step's most likely
// character fed back, until "\n" or the longest word.
func decode(ctx context.Context, m models, input keras.Array) ([]string, error) {
	states, err := m.encoder.PredictOutputs(ctx, input, keras.PredictOptions{})
	if err != nil {
		return nil, err
	}
	n, k := input.Shape[0], len(tokens)
	out := make([]strings.Builder, n)
	done := make([]bool, n)
	prev := make([]int, n)
	for i := range prev {
		prev[i] = strings.IndexRune(tokens, start)
	}
	h, c := states[0], states[1]
	for range maxWord + 1 {
		step := keras.Array{Shape: []int{n, 1, k}, Data: make([]float32, n*k)}
		for i, p := range prev {
			step.Data[i*k+p] = 1
		}
		res, err := m.decoder.PredictOutputs(ctx, keras.Arrays{step, h, c}, keras.PredictOptions{})
		if err != nil {
			return nil, err
		}
		for i := range n {
			probs := res[0].Data[i*k : (i+1)*k]
			best := 0
			for j, p := range probs {
				if p > probs[best] {
					best = j
				}
			}
			prev[i] = best
			if done[i] || rune(tokens[best]) == end {
				done[i] = true
				continue
			}
			out[i].WriteByte(tokens[best])
		}
		h, c = res[1], res[2]
	}
	texts := make([]string, n)
	for i := range out {
		texts[i] = out[i].String()
	}
	return texts, nil
}

// result is the training loss by epoch, the share of held-out words
// decoded exactly, and a few of them.
type result struct {
	loss    []float64
	exact   float64
	samples []string
}

func run(ctx context.Context, o example.Options, units int) (result, error) {
	train, test := words(o.Train, uint64(o.Seed)), words(o.Test, uint64(o.Seed)+1)
	x, y := data(train)
	m, err := newModels(units)
	if err != nil {
		return result{}, err
	}
	if err := m.train.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.01}, Loss: keras.Loss("categorical_crossentropy"),
		Metrics: keras.Metrics("accuracy"), Backend: o.Backend, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	h, err := m.train.Fit(ctx, x, y, keras.FitOptions{Epochs: o.Epochs, BatchSize: 64, Verbose: o.Verbose, Seed: o.Seed})
	if err != nil {
		return result{}, err
	}
	for _, im := range []*keras.Model{m.encoder, m.decoder} { // they share the trained layers
		if err := im.Compile(keras.CompileOptions{Backend: o.Backend}); err != nil {
			return result{}, err
		}
	}
	got, err := decode(ctx, m, oneHot(test, maxWord))
	if err != nil {
		return result{}, err
	}
	var r result
	r.loss = h.Logs["loss"]
	exact := 0
	for i, w := range test {
		if got[i] == reverse(w) {
			exact++
		}
		if i < 5 {
			r.samples = append(r.samples, w+" -> "+got[i])
		}
	}
	r.exact = float64(exact) / float64(len(test))
	return r, nil
}

func main() {
	o := example.ParseFlags(30, 4000, 200)
	r, err := run(context.Background(), o, 64)
	example.Exit("seq2seq", err)
	fmt.Printf("loss by epoch: %.4f\nheld-out words reversed exactly: %.1f%%\n", r.loss, 100*r.exact)
	for _, s := range r.samples {
		fmt.Println(s)
	}
}
