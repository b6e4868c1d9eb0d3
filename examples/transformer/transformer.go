// Package transformer is the model of Keras's example "Text
// classification with Transformer" in Go: token and position embeddings
// (a custom layer, as in Keras's example), one transformer block
// (MultiHeadAttention, residual connections, LayerNormalization and a
// feed-forward network), global average pooling and a small classifier.
// examples/transformer/train trains it; the benchmarks time its training
// step against PyTorch's (bench/torch_step.py --model transformer).
package transformer

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// TokenAndPositionEmbedding adds a learned embedding of each token and a
// learned embedding of its position, like the layer of the same name in
// Keras's example (Keras has no such core layer). Input: (batch, MaxLen)
// token ids; output (batch, MaxLen, EmbedDim).
type TokenAndPositionEmbedding struct {
	MaxLen, VocabSize, EmbedDim int
	layers.Base

	token, position *layers.Weight
}

// ClassName names the class in saved models.
func (*TokenAndPositionEmbedding) ClassName() string { return "TokenAndPositionEmbedding" }

// Build creates the two tables, initialised as Keras's Embedding.
func (e *TokenAndPositionEmbedding) Build(in []backend.Shape) (backend.Shape, error) {
	if len(in) != 1 || len(in[0]) != 2 || in[0][1] != e.MaxLen {
		return nil, fmt.Errorf("expects token ids of shape (batch, %d), received %v", e.MaxLen, in)
	}
	var err error
	if e.token, err = e.AddWeight("token_embeddings", backend.Shape{e.VocabSize, e.EmbedDim}, initializers.RandomUniform{}); err != nil {
		return nil, err
	}
	if e.position, err = e.AddWeight("position_embeddings", backend.Shape{e.MaxLen, e.EmbedDim}, initializers.RandomUniform{}); err != nil {
		return nil, err
	}
	return backend.Shape{in[0][0], e.MaxLen, e.EmbedDim}, nil
}

// Call looks the tokens up and adds the positions' rows (broadcast over
// the batch).
func (e *TokenAndPositionEmbedding) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	b := ctx.B
	return b.Add(b.Gather(ctx.Weight(e.token), in[0]), ctx.Weight(e.position))
}

// CheckInputData rejects token ids outside the vocabulary before training,
// as Embedding does.
func (e *TokenAndPositionEmbedding) CheckInputData(data []float32, ints []int32, sampleSize int) error {
	return (&layers.Embedding{InputDim: e.VocabSize}).CheckInputData(data, ints, sampleSize)
}

// GetConfig saves the sizes.
func (e *TokenAndPositionEmbedding) GetConfig() (serialization.Config, error) {
	return serialization.Config{"maxlen": e.MaxLen, "vocab_size": e.VocabSize, "embed_dim": e.EmbedDim}, nil
}

func init() {
	err := keras.RegisterLayer("TokenAndPositionEmbedding", func(r *serialization.Reader) (layers.Layer, error) {
		return &TokenAndPositionEmbedding{MaxLen: r.Int("maxlen", 0), VocabSize: r.Int("vocab_size", 0), EmbedDim: r.Int("embed_dim", 0)}, nil
	})
	if err != nil {
		panic(err)
	}
}

// Block is Keras's TransformerBlock, written as a function of the
// functional API: self-attention and a feed-forward network, each with
// dropout, a residual connection and LayerNormalization (epsilon 1e-6).
func Block(x *layers.KerasTensor, embedDim, numHeads, ffDim int, rate float64) *layers.KerasTensor {
	attn := layers.Apply(&layers.MultiHeadAttention{NumHeads: numHeads, KeyDim: embedDim}, x, x)
	attn = layers.Apply(&layers.Dropout{Rate: rate}, attn)
	out1 := layers.Apply(&layers.LayerNormalization{Epsilon: 1e-6}, layers.Apply(&layers.Add{}, x, attn))
	ffn := layers.Apply(&layers.Dense{Units: ffDim, Activation: "relu"}, out1)
	ffn = layers.Apply(&layers.Dense{Units: embedDim}, ffn)
	ffn = layers.Apply(&layers.Dropout{Rate: rate}, ffn)
	return layers.Apply(&layers.LayerNormalization{Epsilon: 1e-6}, layers.Apply(&layers.Add{}, out1, ffn))
}

// Config sizes the classifier; Keras's example uses MaxLen 200,
// VocabSize 20000, EmbedDim 32, NumHeads 2, FFDim 32, Classes 2.
type Config struct {
	MaxLen, VocabSize, EmbedDim, NumHeads, FFDim, Classes int
}

// KerasExample is the configuration of Keras's example.
var KerasExample = Config{MaxLen: 200, VocabSize: 20000, EmbedDim: 32, NumHeads: 2, FFDim: 32, Classes: 2}

// NewClassifier builds Keras's example model: embeddings, one transformer
// block, GlobalAveragePooling1D, Dropout(0.1), Dense(20, relu),
// Dropout(0.1) and a softmax over the classes.
func NewClassifier(c Config) (*keras.Model, error) {
	in := layers.Input(c.MaxLen)
	x := layers.Apply(&TokenAndPositionEmbedding{MaxLen: c.MaxLen, VocabSize: c.VocabSize, EmbedDim: c.EmbedDim}, in)
	x = Block(x, c.EmbedDim, c.NumHeads, c.FFDim, 0.1)
	x = layers.Apply(&layers.GlobalAveragePooling1D{}, x)
	x = layers.Apply(&layers.Dropout{Rate: 0.1}, x)
	x = layers.Apply(&layers.Dense{Units: 20, Activation: "relu"}, x)
	x = layers.Apply(&layers.Dropout{Rate: 0.1}, x)
	out := layers.Apply(&layers.Dense{Units: c.Classes, Activation: "softmax"}, x)
	return keras.NewModel(in, out)
}
