package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// CategoryEncoding turns integer indices in [0, NumTokens) into vectors,
// like keras.layers.CategoryEncoding: "multi_hot" (the default) has a 1
// for every index present in a sample (batch, indices) -> (batch,
// NumTokens); "count" counts them; "one_hot" encodes each index, (...)
// -> (..., NumTokens), dropping a last axis of length 1. Its input is
// usually token ids (layers.IntInput) or another layer's indices.
type CategoryEncoding struct {
	NumTokens  int    // required
	OutputMode string // "multi_hot" (the default when empty), "count" or "one_hot"
	Base
}

// ClassName returns "CategoryEncoding".
func (*CategoryEncoding) ClassName() string { return "CategoryEncoding" }

func (l *CategoryEncoding) mode() string {
	if l.OutputMode == "" {
		return "multi_hot"
	}
	return l.OutputMode
}

// Build checks the settings and gives the encoded shape.
func (l *CategoryEncoding) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if l.NumTokens < 1 {
		return nil, fmt.Errorf("num_tokens must be at least 1, got %d", l.NumTokens)
	}
	if err := checkCategoricalMode(l.mode(), false); err != nil {
		return nil, err
	}
	return categoricalShape(in, l.mode(), l.NumTokens)
}

// CheckInputData checks that every index fed straight from a model input
// is an integer in [0, NumTokens), as Keras's CategoryEncoding raises for
// one outside it (an encoding would otherwise drop it silently).
func (l *CategoryEncoding) CheckInputData(data []float32, ints []int32, sampleSize int) error {
	return checkIDs(data, ints, sampleSize, l.NumTokens, "index", "num_tokens", "raise NumTokens or map the values into range first")
}

// Call encodes.
func (l *CategoryEncoding) Call(ctx *Context, in []backend.Value) backend.Value {
	return encodeCategorical(ctx.B, in[0], l.mode(), l.NumTokens)
}

// GetConfig returns Keras's config.
func (l *CategoryEncoding) GetConfig() (serialization.Config, error) {
	return serialization.Config{"num_tokens": l.NumTokens, "output_mode": l.mode(), "sparse": false}, nil
}

func init() {
	mustRegister("CategoryEncoding", func(r *serialization.Reader) (Layer, error) {
		l := &CategoryEncoding{NumTokens: r.Int("num_tokens", 0), OutputMode: r.String("output_mode", "multi_hot")}
		if l.OutputMode == "binary" { // Keras's old name
			l.OutputMode = "multi_hot"
		}
		r.Expect("sparse", false, "kerasgo's outputs are dense")
		return l, nil
	})
}
