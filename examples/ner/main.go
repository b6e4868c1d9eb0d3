// Command ner is Keras's example "Named Entity Recognition using
// Transformers" (keras.io/examples/nlp/ner_transformers) on sentences it
// generates: a model written as Go code (the page's NERModel, a
// subclassed keras.Model) of token and position embeddings for
// sentences of any length, a TransformerBlock layer that holds its
// layers, and a tag per token; the page's loss, which leaves the padding
// out; and batches padded to their own longest sentence, as the page's
// padded_batch pads them.
//
//	go run ./examples/ner -epochs 10
//
// The page trains on CoNLL 2003 (not downloaded here) with a vocabulary
// of 20,000 words and reports conlleval's F1; this program's sentences
// name people, organizations, places and other entities (some words,
// like "jordan" and "washington", are a person in one sentence and a
// place in another), and it prints the share of held-out entity tokens
// tagged right and the tags of one sentence.
package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

// tags is the page's make_tag_lookup_table: 0 is the padding, then O and
// the IOB tags of the four kinds of entity.
var tags = []string{"[PAD]", "O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC"}

func tagOf(name string) int {
	for i, t := range tags {
		if t == name {
			return i
		}
	}
	panic("unknown tag " + name)
}

// The grammar's words: entities of each kind, some of them words of two
// kinds, and templates that place them.
var (
	firstNames = []string{"anna", "peter", "maria", "john", "lena", "omar"}
	lastNames  = []string{"smith", "jones", "jordan", "washington", "berg"}
	places     = [][]string{{"paris"}, {"berlin"}, {"jordan"}, {"washington"}, {"new", "york"}, {"cairo"}}
	orgs       = [][]string{{"acme"}, {"united", "nations"}, {"red", "cross"}, {"reuters"}}
	miscs      = []string{"german", "french", "olympic", "british"}
	templates  = [][]string{
		{"PER", "visited", "LOC", "."},
		{"PER", "works", "for", "ORG", "in", "LOC", "."},
		{"the", "MISC", "team", "met", "PER", "."},
		{"ORG", "said", "PER", "left", "LOC", "on", "monday", "."},
		{"PER", "flew", "to", "LOC", "with", "the", "MISC", "delegation", "."},
		{"LOC", "welcomed", "ORG", "."},
	}
)

// sentence is one sentence's words and their tags.
type sentence struct {
	words []string
	tags  []int
}

// entity appends an entity's words, tagged B- then I-.
func (s *sentence) entity(kind string, words ...string) {
	for i, w := range words {
		prefix := "I-"
		if i == 0 {
			prefix = "B-"
		}
		s.words = append(s.words, w)
		s.tags = append(s.tags, tagOf(prefix+kind))
	}
}

// sentences returns n sentences of the grammar.
func sentences(n int, seed uint64) []sentence {
	r := rand.New(rand.NewPCG(seed, 11))
	out := make([]sentence, n)
	for i := range out {
		var s sentence
		for _, part := range templates[r.IntN(len(templates))] {
			switch part {
			case "PER":
				name := []string{firstNames[r.IntN(len(firstNames))]}
				if r.IntN(2) == 0 {
					name = append(name, lastNames[r.IntN(len(lastNames))])
				}
				s.entity("PER", name...)
			case "LOC":
				s.entity("LOC", places[r.IntN(len(places))]...)
			case "ORG":
				s.entity("ORG", orgs[r.IntN(len(orgs))]...)
			case "MISC":
				s.entity("MISC", miscs[r.IntN(len(miscs))])
			default:
				s.words = append(s.words, part)
				s.tags = append(s.tags, tagOf("O"))
			}
		}
		out[i] = s
	}
	return out
}

// vocabulary maps the words of the sentences to ids from 2: 0 is the
// padding and 1 a word not in the vocabulary (the page's StringLookup).
func vocabulary(ss []sentence) map[string]int {
	seen := map[string]bool{}
	for _, s := range ss {
		for _, w := range s.words {
			seen[w] = true
		}
	}
	words := make([]string, 0, len(seen))
	for w := range seen {
		words = append(words, w)
	}
	sort.Strings(words)
	ids := make(map[string]int, len(words))
	for i, w := range words {
		ids[w] = i + 2
	}
	return ids
}

// encode returns the ids of words.
func encode(vocab map[string]int, words []string) []int {
	out := make([]int, len(words))
	for i, w := range words {
		if id, ok := vocab[w]; ok {
			out[i] = id
		} else {
			out[i] = 1
		}
	}
	return out
}

// paddedBatches is the page's padded_batch: batches of sentences in
// order, each padded with 0 to its own longest sentence, so that batches
// have different lengths.
type paddedBatches struct {
	ss    []sentence
	vocab map[string]int
	size  int
}

// Len returns the number of batches.
func (p paddedBatches) Len() int { return (len(p.ss) + p.size - 1) / p.size }

// Batch returns batch i: ids (batch, longest) and tags (batch, longest).
func (p paddedBatches) Batch(_ context.Context, i int) (keras.Batch, error) {
	ss := p.ss[i*p.size : min((i+1)*p.size, len(p.ss))]
	x, y := padded(p.vocab, ss)
	return keras.Batch{X: x, Y: y}, nil
}

// padded returns the sentences' ids and tags, padded to the longest.
func padded(vocab map[string]int, ss []sentence) (keras.Array, keras.Array) {
	longest := 0
	for _, s := range ss {
		longest = max(longest, len(s.words))
	}
	ids := make([]int32, len(ss)*longest)
	ys := make([]float32, len(ss)*longest)
	for i, s := range ss {
		for j, id := range encode(vocab, s.words) {
			ids[i*longest+j] = int32(id)
			ys[i*longest+j] = float32(s.tags[j])
		}
	}
	return keras.Must(keras.NewIntArray(ids, len(ss), longest)), keras.Must(keras.NewArray(ys, len(ss), longest))
}

// tokenAndPositionEmbedding is the page's layer: the tokens' embedding
// plus the embedding of each position, for sentences of any length up to
// MaxLen.
type tokenAndPositionEmbedding struct {
	layers.Base
	MaxLen   int `keras:"-"`
	Token    *layers.Embedding
	Position *layers.Embedding `keras:"pos_emb"`
}

func (*tokenAndPositionEmbedding) ClassName() string { return "TokenAndPositionEmbedding" }

// TakesAnyLength: the layer reads the sentences' length from its input.
func (*tokenAndPositionEmbedding) TakesAnyLength() {}

func (e *tokenAndPositionEmbedding) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	b := ctx.B
	steps := in[0].Shape()[1]
	positions := ctx.Apply(e.Position, ops.Arange(b, 0, float64(steps), 1)) // (steps, embed), the page's tf.range
	return ops.Add(b, ctx.Apply(e.Token, in[0]), positions)
}

// CheckInputData refuses sentences longer than the position table and
// ids outside the vocabulary, before the engine sees them.
func (e *tokenAndPositionEmbedding) CheckInputData(data []float32, ints []int32, steps int) error {
	if steps > e.MaxLen {
		return fmt.Errorf("a sentence of %d tokens is longer than the %d positions of the table (MaxLen)", steps, e.MaxLen)
	}
	return e.Token.CheckInputData(data, ints, steps)
}

// transformerBlock is the page's TransformerBlock: self-attention and a
// feed-forward network, each with dropout, a residual sum and
// LayerNormalization.
type transformerBlock struct {
	layers.Base
	Att                *layers.MultiHeadAttention
	FFN1, FFN2         *layers.Dense
	Norm1, Norm2       *layers.LayerNormalization
	Dropout1, Dropout2 *layers.Dropout
}

func newTransformerBlock(embedDim, numHeads, ffDim int, rate float64) *transformerBlock {
	return &transformerBlock{
		Att:  &layers.MultiHeadAttention{NumHeads: numHeads, KeyDim: embedDim},
		FFN1: &layers.Dense{Units: ffDim, Activation: "relu"}, FFN2: &layers.Dense{Units: embedDim},
		Norm1: &layers.LayerNormalization{Epsilon: 1e-6}, Norm2: &layers.LayerNormalization{Epsilon: 1e-6},
		Dropout1: &layers.Dropout{Rate: rate}, Dropout2: &layers.Dropout{Rate: rate},
	}
}

func (*transformerBlock) ClassName() string { return "TransformerBlock" }

// TakesAnyLength: every layer the block holds takes any length.
func (*transformerBlock) TakesAnyLength() {}

func (t *transformerBlock) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	attn := ctx.Apply(t.Dropout1, ctx.Apply(t.Att, x, x))
	out1 := ctx.Apply(t.Norm1, ops.Add(b, x, attn))
	ffn := ctx.Apply(t.Dropout2, ctx.Apply(t.FFN2, ctx.Apply(t.FFN1, out1)))
	return ctx.Apply(t.Norm2, ops.Add(b, out1, ffn))
}

// nerModel is the page's NERModel, written as Go code.
type nerModel struct {
	layers.Base
	Embedding          *tokenAndPositionEmbedding `keras:"embedding_layer"`
	Block              *transformerBlock          `keras:"transformer_block"`
	Dropout1, Dropout2 *layers.Dropout
	FF, FFFinal        *layers.Dense
}

// Config sizes the model; the page's is vocab 20000, maxlen 128, embed
// 32, 4 heads, feed-forward 64.
type Config struct {
	MaxLen, EmbedDim, NumHeads, FFDim int
}

func newNERModel(c Config, vocab int) *nerModel {
	return &nerModel{
		Embedding: &tokenAndPositionEmbedding{MaxLen: c.MaxLen, Token: &layers.Embedding{InputDim: vocab, OutputDim: c.EmbedDim},
			Position: &layers.Embedding{InputDim: c.MaxLen, OutputDim: c.EmbedDim}},
		Block:    newTransformerBlock(c.EmbedDim, c.NumHeads, c.FFDim, 0.1),
		Dropout1: &layers.Dropout{Rate: 0.1}, Dropout2: &layers.Dropout{Rate: 0.1},
		FF: &layers.Dense{Units: c.FFDim, Activation: "relu"}, FFFinal: &layers.Dense{Units: len(tags), Activation: "softmax"},
	}
}

func (*nerModel) ClassName() string { return "NERModel" }

// TakesAnyLength: every layer the model holds takes any length.
func (*nerModel) TakesAnyLength() {}

// CheckInputData checks the ids as the embedding does.
func (m *nerModel) CheckInputData(data []float32, ints []int32, steps int) error {
	return m.Embedding.CheckInputData(data, ints, steps)
}

func (m *nerModel) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	x := ctx.Apply(m.Block, ctx.Apply(m.Embedding, in[0]))
	x = ctx.Apply(m.Dropout2, ctx.Apply(m.FF, ctx.Apply(m.Dropout1, x)))
	return ctx.Apply(m.FFFinal, x)
}

// nonPaddingLoss is the page's CustomLoss: sparse categorical
// crossentropy over the tokens whose tag is not the padding's. (The page
// passes from_logits=True to a softmax output; here the output is read
// as the probabilities it is.)
func nonPaddingLoss(b backend.Builder, yTrue, yPred backend.Value) backend.Value {
	loss := ops.SparseCategoricalCrossentropy(b, yTrue, yPred, false, -1)
	mask := ops.Greater(b, yTrue, b.Scalar(0))
	return ops.Divide(b, ops.Sum(b, ops.Multiply(b, loss, mask)), ops.Sum(b, mask))
}

// result is what a run measured.
type result struct {
	entityAccuracy float64 // held-out entity tokens tagged right
	tokenAccuracy  float64 // held-out tokens (not padding) tagged right
	loss           []float64
	sample         string // one sentence with its predicted tags
}

func run(ctx context.Context, o example.Options, c Config) (result, error) {
	train, test := sentences(o.Train, uint64(o.Seed)), sentences(o.Test, uint64(o.Seed)+100)
	vocab := vocabulary(train)
	in := layers.IntInput(-1) // sentences of any length, as the page's ragged batches
	m, err := keras.NewModel(in, layers.Apply(newNERModel(c, len(vocab)+2), in))
	if err != nil {
		return result{}, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{}, Loss: keras.LossOf(losses.FromFunc(nonPaddingLoss)),
		Backend: o.Backend, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	h, err := m.Fit(ctx, keras.Batches{Dataset: paddedBatches{train, vocab, 32}}, nil, keras.FitOptions{Epochs: o.Epochs, Verbose: o.Verbose, Seed: o.Seed})
	if err != nil {
		return result{}, err
	}
	r := result{loss: h.Logs["loss"]}
	var entities, entitiesRight, tokens, tokensRight int
	for lo := 0; lo < len(test); lo += 32 {
		batch := test[lo:min(lo+32, len(test))]
		x, y := padded(vocab, batch)
		p, err := m.Predict(ctx, x, keras.PredictOptions{})
		if err != nil {
			return result{}, err
		}
		for i, want := range y.Data {
			if want == 0 {
				continue
			}
			got := argmax(p.Data[i*len(tags) : (i+1)*len(tags)])
			tokens++
			if got == int(want) {
				tokensRight++
			}
			if want != float32(tagOf("O")) {
				entities++
				if got == int(want) {
					entitiesRight++
				}
			}
		}
	}
	r.entityAccuracy = float64(entitiesRight) / float64(entities)
	r.tokenAccuracy = float64(tokensRight) / float64(tokens)
	words := strings.Fields("maria jordan flew to jordan with the olympic delegation .")
	x, _ := padded(vocab, []sentence{{words: words, tags: make([]int, len(words))}})
	p, err := m.Predict(ctx, x, keras.PredictOptions{})
	if err != nil {
		return result{}, err
	}
	var parts []string
	for i, w := range words {
		parts = append(parts, w+"/"+tags[argmax(p.Data[i*len(tags):(i+1)*len(tags)])])
	}
	r.sample = strings.Join(parts, " ")
	return r, nil
}

func argmax(p []float32) int {
	best := 0
	for i, v := range p {
		if v > p[best] {
			best = i
		}
	}
	return best
}

func main() {
	o := example.ParseFlags(10, 2000, 400)
	r, err := run(context.Background(), o, Config{MaxLen: 32, EmbedDim: 32, NumHeads: 4, FFDim: 64})
	example.Exit("ner", err)
	fmt.Printf("held-out entity tokens tagged right: %.3f; all tokens: %.3f\n", r.entityAccuracy, r.tokenAccuracy)
	fmt.Println(r.sample)
}
