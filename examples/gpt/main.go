// Command gpt is Keras's example "Text generation with a miniature GPT"
// (keras.io/examples/generative/text_generation_with_miniature_gpt) on
// sentences it generates from a small grammar: token and position
// embeddings, a TransformerBlock layer that holds its attention (with a
// causal mask), feed-forward and normalization layers, and a Dense layer
// of next-token logits; then a sampling loop writes text from a prompt,
// each token drawn from the top k of the model's distribution.
//
//	go run ./examples/gpt -epochs 5
//
// The page trains on 50,000 IMDB reviews (not downloaded here), with a
// TextVectorization of 20,000 words and sequences of 80, and prints a
// generated review after each epoch; this program's sentences use a
// vocabulary of 40 words, and it prints its held-out next-token accuracy
// and a generated text.
package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/examples/transformer"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// TransformerBlock is the page's TransformerBlock: causal self-attention
// and a feed-forward network, each with dropout, a residual connection
// and LayerNormalization. It holds its layers as fields, so they are its
// sublayers (counted, trained and saved with it).
type TransformerBlock struct {
	layers.Base
	Att   *layers.MultiHeadAttention `keras:"att"`
	FF1   *layers.Dense              `keras:"ffn_1"`
	FF2   *layers.Dense              `keras:"ffn_2"`
	Norm1 *layers.LayerNormalization `keras:"layernorm1"`
	Norm2 *layers.LayerNormalization `keras:"layernorm2"`
	Drop1 *layers.Dropout            `keras:"dropout1"`
	Drop2 *layers.Dropout            `keras:"dropout2"`
}

// NewTransformerBlock returns a block of embedDim with numHeads heads and
// a feed-forward layer of ffDim.
func NewTransformerBlock(embedDim, numHeads, ffDim int, rate float64) *TransformerBlock {
	return &TransformerBlock{
		Att: &layers.MultiHeadAttention{NumHeads: numHeads, KeyDim: embedDim, UseCausalMask: true},
		FF1: &layers.Dense{Units: ffDim, Activation: "relu"}, FF2: &layers.Dense{Units: embedDim},
		Norm1: &layers.LayerNormalization{Epsilon: 1e-6}, Norm2: &layers.LayerNormalization{Epsilon: 1e-6},
		Drop1: &layers.Dropout{Rate: rate}, Drop2: &layers.Dropout{Rate: rate},
	}
}

// ClassName returns "TransformerBlock".
func (*TransformerBlock) ClassName() string { return "TransformerBlock" }

// Build builds the sublayers for inputs (batch, steps, embedDim).
func (t *TransformerBlock) Build(in []backend.Shape) (backend.Shape, error) {
	if len(in) != 1 || len(in[0]) != 3 {
		return nil, fmt.Errorf("expects one input (batch, steps, features), received %v", in)
	}
	s := in[0]
	steps := []func() (backend.Shape, error){
		func() (backend.Shape, error) { return t.Att.Build([]backend.Shape{s, s}) },
		func() (backend.Shape, error) { return t.Norm1.Build(in) },
		func() (backend.Shape, error) { return t.FF1.Build(in) },
	}
	var mid backend.Shape
	for i, step := range steps {
		out, err := step()
		if err != nil {
			return nil, err
		}
		if i == 2 {
			mid = out
		}
	}
	if _, err := t.FF2.Build([]backend.Shape{mid}); err != nil {
		return nil, err
	}
	for _, l := range []layers.Layer{t.Norm2, t.Drop1, t.Drop2} {
		if _, err := l.Build(in); err != nil {
			return nil, err
		}
	}
	return s.Clone(), nil
}

// Call runs the block.
func (t *TransformerBlock) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	attn := t.Drop1.Call(ctx, []backend.Value{t.Att.Call(ctx, []backend.Value{x, x})})
	out1 := t.Norm1.Call(ctx, []backend.Value{ops.Add(b, x, attn)})
	ff := t.FF2.Call(ctx, []backend.Value{t.FF1.Call(ctx, []backend.Value{out1})})
	ff = t.Drop2.Call(ctx, []backend.Value{ff})
	return t.Norm2.Call(ctx, []backend.Value{ops.Add(b, out1, ff)})
}

// Config sizes the model; the page's is maxlen 80, vocab 20000, embed
// 256, 2 heads, feed-forward 256.
type Config struct {
	MaxLen, EmbedDim, NumHeads, FFDim int
}

// newGPT returns the page's create_model: logits for the next token at
// every position.
func newGPT(c Config, vocab int) (*keras.Model, error) {
	in := layers.Input(c.MaxLen)
	x := layers.Apply(&transformer.TokenAndPositionEmbedding{MaxLen: c.MaxLen, VocabSize: vocab, EmbedDim: c.EmbedDim}, in)
	x = layers.Apply(NewTransformerBlock(c.EmbedDim, c.NumHeads, c.FFDim, 0.1), x)
	return keras.NewModel(in, layers.Apply(&layers.Dense{Units: vocab}, x))
}

// The grammar: sentences "<det> <adj> <noun> <verb> <det> <noun> ." with
// words of each kind, so the next word is predictable in kind, and in
// some places (after a determiner, an adjective or a noun) in part.
var (
	dets  = []string{"the", "a", "every", "no"}
	adjs  = []string{"small", "old", "red", "quiet", "happy", "clever"}
	nouns = []string{"cat", "dog", "bird", "fox", "horse", "child", "farmer", "teacher"}
	verbs = []string{"sees", "likes", "follows", "finds", "chases", "helps", "knows"}
	words = vocabulary()
)

// vocabulary is the padding token, then every word and the full stop.
func vocabulary() []string {
	v := []string{"", "."}
	for _, ws := range [][]string{dets, adjs, nouns, verbs} {
		v = append(v, ws...)
	}
	return v
}

func idOf(w string) int {
	for i, v := range words {
		if v == w {
			return i
		}
	}
	panic("unknown word " + w)
}

// corpus returns n sequences of maxLen+1 token ids of running text.
func corpus(n, maxLen int, seed uint64) [][]int {
	r := rand.New(rand.NewPCG(seed, 3))
	pick := func(ws []string) int { return idOf(ws[r.IntN(len(ws))]) }
	out := make([][]int, n)
	for i := range out {
		var seq []int
		for len(seq) < maxLen+1 {
			// an adjective two times in three; verbs prefer some nouns
			s := []int{pick(dets)}
			if r.IntN(3) > 0 {
				s = append(s, pick(adjs))
			}
			s = append(s, pick(nouns), pick(verbs), pick(dets), pick(nouns), idOf("."))
			seq = append(seq, s...)
		}
		out[i] = seq[:maxLen+1]
	}
	return out
}

// shifted makes the page's (x, y): each sequence and the same shifted by
// one, so that every position predicts the next token.
func shifted(seqs [][]int, maxLen int) (x, y keras.Array) {
	x = keras.Array{Shape: []int{len(seqs), maxLen}, Data: make([]float32, 0, len(seqs)*maxLen)}
	y = keras.Array{Shape: []int{len(seqs), maxLen}, Data: make([]float32, 0, len(seqs)*maxLen)}
	for _, s := range seqs {
		for t := 0; t < maxLen; t++ {
			x.Data = append(x.Data, float32(s[t]))
			y.Data = append(y.Data, float32(s[t+1]))
		}
	}
	return x, y
}

// generate is the page's TextGenerator: from the prompt, predict the next
// token's logits at the last filled position, draw it from the top k by
// their softmax, append, and repeat.
func generate(ctx context.Context, m *keras.Model, prompt []int, n, maxLen, k int, r *rand.Rand) ([]int, error) {
	tokens := append([]int(nil), prompt...)
	for range n {
		start := max(0, len(tokens)-maxLen)
		window := tokens[start:]
		x := keras.Array{Shape: []int{1, maxLen}, Data: make([]float32, maxLen)}
		for i, t := range window {
			x.Data[i] = float32(t)
		}
		p, err := m.Predict(ctx, x, keras.PredictOptions{})
		if err != nil {
			return nil, err
		}
		vocab := p.Shape[2]
		logits := p.Data[(len(window)-1)*vocab : len(window)*vocab]
		tokens = append(tokens, sampleTopK(logits, k, r))
	}
	return tokens, nil
}

// sampleTopK draws an index among the k largest logits, by their softmax.
func sampleTopK(logits []float32, k int, r *rand.Rand) int {
	idx := make([]int, len(logits))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return logits[idx[a]] > logits[idx[b]] })
	idx = idx[:k]
	w := make([]float64, k)
	total := 0.0
	for i, j := range idx {
		w[i] = math.Exp(float64(logits[j] - logits[idx[0]]))
		total += w[i]
	}
	u := r.Float64() * total
	for i, v := range w {
		if u < v {
			return idx[i]
		}
		u -= v
	}
	return idx[k-1]
}

// result is the loss by epoch, the held-out next-token accuracy, a
// generated text and the share of its word pairs the grammar allows.
type result struct {
	loss        []float64
	accuracy    float64
	text        string
	grammatical float64
}

// kind is a word's part in the grammar.
func kind(w string) string {
	for k, ws := range map[string][]string{"det": dets, "adj": adjs, "noun": nouns, "verb": verbs} {
		for _, v := range ws {
			if v == w {
				return k
			}
		}
	}
	return w // "." and padding
}

// grammatical is the share of adjacent word pairs of tokens that the
// grammar allows.
func grammatical(tokens []int) float64 {
	allowed := map[string]string{".": "det", "det": "adj noun", "adj": "noun", "noun": "verb .", "verb": "det"}
	ok := 0
	for i := 1; i < len(tokens); i++ {
		if strings.Contains(" "+allowed[kind(words[tokens[i-1]])]+" ", " "+kind(words[tokens[i]])+" ") {
			ok++
		}
	}
	return float64(ok) / float64(len(tokens)-1)
}

func run(ctx context.Context, o example.Options, c Config) (result, error) {
	x, y := shifted(corpus(o.Train, c.MaxLen, uint64(o.Seed)), c.MaxLen)
	xt, yt := shifted(corpus(o.Test, c.MaxLen, uint64(o.Seed)+1), c.MaxLen)
	m, err := newGPT(c, len(words))
	if err != nil {
		return result{}, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.LossOf(losses.SparseCategoricalCrossentropy{FromLogits: true}),
		Metrics: keras.Metrics("accuracy"), Backend: o.Backend, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	h, err := m.Fit(ctx, x, y, keras.FitOptions{Epochs: o.Epochs, BatchSize: 32, Verbose: o.Verbose, Seed: o.Seed})
	if err != nil {
		return result{}, err
	}
	logs, err := m.Evaluate(ctx, xt, yt, keras.EvaluateOptions{Verbose: keras.Silent})
	if err != nil {
		return result{}, err
	}
	var r result
	r.loss = h.Logs["loss"]
	r.accuracy, _ = logs.Get("accuracy")
	tokens, err := generate(ctx, m, []int{idOf("the")}, 20, c.MaxLen, 3, rand.New(rand.NewPCG(uint64(o.Seed), 4)))
	if err != nil {
		return result{}, err
	}
	text := make([]string, len(tokens))
	for i, t := range tokens {
		text[i] = words[t]
	}
	r.text = strings.Join(text, " ")
	r.grammatical = grammatical(tokens)
	return r, nil
}

func main() {
	o := example.ParseFlags(5, 2000, 200)
	r, err := run(context.Background(), o, Config{MaxLen: 32, EmbedDim: 64, NumHeads: 2, FFDim: 64})
	example.Exit("gpt", err)
	fmt.Printf("loss by epoch: %.4f\nheld-out next-token accuracy: %.4f (at most about 0.29 for this grammar)\ngenerated (%.0f%% of word pairs grammatical): %s\n",
		r.loss, r.accuracy, 100*r.grammatical, r.text)
}
