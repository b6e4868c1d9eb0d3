package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// ReversibleEmbedding is an Embedding that can also project back from
// its vectors to the vocabulary, like keras.layers.ReversibleEmbedding
// (the tied input and output embeddings of a language model). Applied
// as an Embedding, it embeds token ids; applied with Reverse (Keras's
// embedding(hidden, reverse=True)), it maps (batch, ..., OutputDim) to
// logits (batch, ..., InputDim) by the transposed embeddings matrix, or
// by a matrix of its own with UntieWeights. It has no bias.
//
// The forward call carries MaskZero's mask as Embedding's does; the
// reverse call's output has none, as in Keras.
type ReversibleEmbedding struct {
	Embedding
	// UntieWeights gives the reverse projection its own trainable matrix
	// reverse_embeddings (OutputDim, InputDim), initialised as the
	// embeddings are (Keras's tie_weights=False; Keras's default ties
	// them).
	UntieWeights bool
	// LogitSoftCap, when positive, caps the reverse call's logits as
	// tanh(logits / cap) · cap (Keras's logit_soft_cap; 0 for none).
	LogitSoftCap float64

	reverseEmbeddings *Weight
}

// ClassName returns "ReversibleEmbedding".
func (*ReversibleEmbedding) ClassName() string { return "ReversibleEmbedding" }

// Reverse applies e in reverse to hidden states of shape (batch, ...,
// OutputDim), giving logits (batch, ..., InputDim): Keras's
// embedding(hidden, reverse=True).
func (e *ReversibleEmbedding) Reverse(hidden *KerasTensor) *KerasTensor {
	return ApplyWithArguments(e, map[string]any{"reverse": true}, hidden)
}

// reverseCall reports whether a call's arguments make it a reverse call,
// checking that they are the ones the layer takes.
func reverseCall(args map[string]any) (bool, error) {
	reverse := false
	for k, v := range args {
		b, isBool := v.(bool)
		if k != "reverse" || !isBool {
			return false, fmt.Errorf("call argument %s=%v: ReversibleEmbedding takes reverse=true or false", k, v)
		}
		reverse = b
	}
	return reverse, nil
}

// Build builds the layer for a forward call (token ids).
func (e *ReversibleEmbedding) Build(inputs []backend.Shape) (backend.Shape, error) {
	return e.BuildCall(inputs, nil)
}

// BuildCall builds the embeddings (and the reverse matrix, untied) and
// gives a call's output shape: the ids' shape with OutputDim appended,
// or, for a reverse call, the hidden states' with InputDim last.
func (e *ReversibleEmbedding) BuildCall(inputs []backend.Shape, args map[string]any) (backend.Shape, error) {
	reverse, err := reverseCall(args)
	if err != nil {
		return nil, err
	}
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if !(e.LogitSoftCap >= 0) {
		return nil, fmt.Errorf("logit_soft_cap is %v: give a positive cap, or 0 for none", e.LogitSoftCap)
	}
	ids := in
	if reverse {
		ids = backend.Shape{-1} // the forward build's check of the input's rank
	}
	if _, err := e.Embedding.Build([]backend.Shape{ids}); err != nil {
		return nil, err
	}
	if e.UntieWeights {
		if e.reverseEmbeddings, err = e.AddWeight("reverse_embeddings", backend.Shape{e.OutputDim, e.InputDim}, e.embeddings.Initializer); err != nil {
			return nil, err
		}
	}
	if !reverse {
		return append(in.Clone(), e.OutputDim), nil
	}
	if len(in) < 2 || in[len(in)-1] != e.OutputDim {
		return nil, fmt.Errorf("a reverse call projects vectors of output_dim %d back to the vocabulary: want an input (batch, ..., %d), received %v", e.OutputDim, e.OutputDim, in)
	}
	out := in.Clone()
	out[len(out)-1] = e.InputDim
	return out, nil
}

// Call embeds the ids or, in a reverse call, projects the vectors back.
func (e *ReversibleEmbedding) Call(ctx *Context, in []backend.Value) backend.Value {
	if reverse, _ := ctx.CallArgument("reverse").(bool); !reverse {
		return e.Embedding.Call(ctx, in)
	}
	b := ctx.B
	x := in[0]
	var kernel backend.Value
	if e.UntieWeights {
		kernel = ctx.Weight(e.reverseEmbeddings)
	} else {
		kernel = b.Transpose(ctx.Weight(e.embeddings), 1, 0)
	}
	s := x.Shape()
	rows := s[:len(s)-1].Size()
	logits := b.MatMul(b.Reshape(x, backend.Shape{rows, e.OutputDim}), kernel)
	if e.LogitSoftCap > 0 {
		cap := b.Scalar(e.LogitSoftCap)
		logits = b.Mul(b.Tanh(b.Div(logits, cap)), cap)
	}
	out := s.Clone()
	out[len(out)-1] = e.InputDim
	return b.Reshape(logits, out)
}

// ComputeMask gives the forward call Embedding's mask and the reverse
// call none.
func (e *ReversibleEmbedding) ComputeMask(ctx *Context, in, masks []backend.Value) backend.Value {
	if reverse, _ := ctx.CallArgument("reverse").(bool); reverse {
		return nil
	}
	return e.Embedding.ComputeMask(ctx, in, masks)
}

// checksInputOf reports whether the call that made t reads token ids
// (a forward call), which CheckInputData checks.
func (e *ReversibleEmbedding) checksInputOf(t *KerasTensor) bool {
	reverse, _ := t.Head().callArgs["reverse"].(bool)
	return !reverse
}

// GetConfig returns Keras's ReversibleEmbedding config: Embedding's and
// tie_weights, reverse_dtype and logit_soft_cap.
func (e *ReversibleEmbedding) GetConfig() (serialization.Config, error) {
	cfg, err := e.Embedding.GetConfig()
	if err != nil {
		return nil, err
	}
	cfg["tie_weights"], cfg["reverse_dtype"], cfg["logit_soft_cap"] = !e.UntieWeights, nil, nil
	if e.LogitSoftCap > 0 {
		cfg["logit_soft_cap"] = e.LogitSoftCap
	}
	return cfg, nil
}

func init() {
	mustRegister("ReversibleEmbedding", func(r *serialization.Reader) (Layer, error) {
		e := &ReversibleEmbedding{Embedding: *readEmbedding(r), UntieWeights: !r.Bool("tie_weights", true)}
		e.LogitSoftCap = r.Float("logit_soft_cap", 0)
		r.Expect("reverse_dtype", "float32", "kerasgo computes the reverse projection in float32: give null or \"float32\"")
		return e, nil
	})
}
