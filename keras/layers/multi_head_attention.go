package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// MultiHeadAttention is Keras's multi-head attention layer
// (keras.layers.MultiHeadAttention, "Attention is all you need"): the
// query, key and value are projected to NumHeads heads, each head
// attends with scaled dot products, and the heads' outputs are projected
// back to the query's width (or OutputShape).
//
// Apply it to query and value, and optionally key (value is the key if
// absent) and an attention mask (batch, query steps, value steps),
// nonzero where a query step may attend to a value step (int or float;
// Keras casts it to bool). The inputs' own masks (Embedding mask_zero,
// Masking) and UseCausalMask narrow it further, as Keras's
// _compute_attention_mask does:
//
//	layers.Apply(mha, x, x)             // self-attention
//	layers.Apply(mha, q, v, k, mask)    // cross-attention with a mask
//
// UseCausalMask is Keras's use_causal_mask call argument as a setting:
// step i attends to steps up to i only. Inputs are (batch, steps,
// features); attention over several axes (attention_axes) is not
// supported. The weights have Keras's shapes: query, key and value
// kernels (features, heads, key_dim or value_dim) with biases (heads,
// dim), the output kernel (heads, value_dim, output) and bias (output).
type MultiHeadAttention struct {
	NumHeads          int     // required
	KeyDim            int     // size of each head for query and key, required
	ValueDim          int     // size of each head for value; default KeyDim
	Dropout           float64 // dropout on the attention probabilities in training
	NoBias            bool
	OutputShape       int    // width of the output; default the query's
	UseCausalMask     bool   // Keras's use_causal_mask
	KernelInitializer string // default "glorot_uniform"
	BiasInitializer   string // default "zeros"
	// KernelRegularizer, BiasRegularizer, KernelConstraint and
	// BiasConstraint apply to the kernels and biases of all four
	// projections, as Keras's do. The layer's ActivityRegularizer, as in
	// Keras, penalises the four projections' outputs (query, key, value
	// and output), not only the layer's output.
	KernelRegularizer, BiasRegularizer regularizers.Regularizer
	KernelConstraint, BiasConstraint   constraints.Constraint
	// ReturnAttentionScores is Keras's return_attention_scores call
	// argument as a setting: a second output, the attention
	// probabilities (batch, heads, query steps, value steps), before
	// dropout (layers.ApplyOutputs gives both).
	ReturnAttentionScores bool
	Base

	core attentionCore
}

// penalizesInnerActivity: MultiHeadAttention's activity regularizer
// penalises its projections' outputs (attend adds them).
func (*MultiHeadAttention) penalizesInnerActivity() {}

// ClassName returns "MultiHeadAttention".
func (*MultiHeadAttention) ClassName() string { return "MultiHeadAttention" }

func (l *MultiHeadAttention) valueDim() int {
	if l.ValueDim == 0 {
		return l.KeyDim
	}
	return l.ValueDim
}

// settings are the layer's settings as the attention layers share them.
func (l *MultiHeadAttention) settings() attentionCore {
	return attentionCore{heads: l.NumHeads, kvHeads: l.NumHeads, keyDim: l.KeyDim, valueDim: l.valueDim(), outDim: l.OutputShape, dropout: l.Dropout,
		noBias: l.NoBias, causal: l.UseCausalMask, returnScores: l.ReturnAttentionScores, kernelInit: l.KernelInitializer, biasInit: l.BiasInitializer,
		kernelReg: l.KernelRegularizer, biasReg: l.BiasRegularizer, kernelCon: l.KernelConstraint, biasCon: l.BiasConstraint}
}

// Build checks the inputs and creates the four projections.
func (l *MultiHeadAttention) Build(inputs []backend.Shape) (backend.Shape, error) {
	l.core = l.settings()
	return l.core.build(&l.Base, inputs, func() error {
		if l.NumHeads <= 0 || l.KeyDim <= 0 || l.ValueDim < 0 || l.OutputShape < 0 {
			return fmt.Errorf("num_heads and key_dim must be positive, got %d and %d", l.NumHeads, l.KeyDim)
		}
		return nil
	})
}

// OutputShapes gives the output's and the attention scores' shapes with
// ReturnAttentionScores, and nil (one output) otherwise.
func (l *MultiHeadAttention) OutputShapes() []backend.Shape { return l.core.outs }

// Call attends.
func (l *MultiHeadAttention) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallOutputs(ctx, in)[0]
}

// CallOutputs returns the output and, with ReturnAttentionScores, the
// attention scores.
func (l *MultiHeadAttention) CallOutputs(ctx *Context, in []backend.Value) []backend.Value {
	c := l.settings()
	c.query, c.key, c.value, c.output = l.core.query, l.core.key, l.core.value, l.core.output
	return c.call(ctx, l.ActivityRegularizer, in)
}

// CallKwargs gives Keras's use_causal_mask and return_attention_scores
// call arguments when set.
func (l *MultiHeadAttention) CallKwargs() map[string]any {
	return attentionCallKwargs(l.UseCausalMask, l.ReturnAttentionScores)
}

// attentionCallKwargs are an attention layer's call arguments as Keras's
// inbound nodes record them.
func attentionCallKwargs(causal, scores bool) map[string]any {
	kw := map[string]any{}
	if causal {
		kw["use_causal_mask"] = true
	}
	if scores {
		kw["return_attention_scores"] = true
	}
	if len(kw) == 0 {
		return nil
	}
	return kw
}

// SetCallKwarg reads use_causal_mask and return_attention_scores.
func (l *MultiHeadAttention) SetCallKwarg(key string, v any) bool {
	return setAttentionCallKwarg(key, v, &l.UseCausalMask, &l.ReturnAttentionScores)
}

// setAttentionCallKwarg reads an attention layer's call argument.
func setAttentionCallKwarg(key string, v any, causal, scores *bool) bool {
	b, isBool := v.(bool)
	switch {
	case key == "use_causal_mask" && isBool:
		*causal = b
		return true
	case key == "return_attention_scores" && isBool:
		*scores = b
		return true
	}
	return false
}

// ComputeMask passes the query's mask on.
func (l *MultiHeadAttention) ComputeMask(_ *Context, _, m []backend.Value) backend.Value {
	return firstMask(m)
}

// PositionalInputs: Keras calls mha(query, value, key, attention_mask)
// and builds it with build(query_shape, value_shape, key_shape).
func (*MultiHeadAttention) PositionalInputs() []string {
	return []string{"query_shape", "value_shape", "key_shape"}
}

// SavedGroups keeps each projection's kernel and bias under its Keras
// sub-layer.
func (l *MultiHeadAttention) SavedGroups() []SavedGroup { return l.core.savedGroups("") }

// GetConfig returns Keras's MultiHeadAttention config.
func (l *MultiHeadAttention) GetConfig() (serialization.Config, error) {
	k, err := initializers.Serialize(l.KernelInitializer, "glorot_uniform")
	if err != nil {
		return nil, err
	}
	bi, err := initializers.Serialize(l.BiasInitializer, "zeros")
	if err != nil {
		return nil, err
	}
	var outShape any
	if l.OutputShape > 0 {
		outShape = []int{l.OutputShape}
	}
	cfg := serialization.Config{"num_heads": l.NumHeads, "key_dim": l.KeyDim, "value_dim": l.valueDim(), "dropout": l.Dropout,
		"use_bias": !l.NoBias, "output_shape": outShape, "attention_axes": nil, "kernel_initializer": k, "bias_initializer": bi, "seed": nil}
	cfg["activity_regularizer"] = nil
	return cfg, penaltiesConfig(cfg, map[string]regularizers.Regularizer{"kernel": l.KernelRegularizer, "bias": l.BiasRegularizer},
		map[string]constraints.Constraint{"kernel": l.KernelConstraint, "bias": l.BiasConstraint})
}

func init() {
	mustRegister("MultiHeadAttention", func(r *serialization.Reader) (Layer, error) {
		l := &MultiHeadAttention{NumHeads: r.Int("num_heads", 0), KeyDim: r.Int("key_dim", 0), Dropout: r.Float("dropout", 0),
			NoBias: !r.Bool("use_bias", true), KernelInitializer: readInitializer(r, "kernel_initializer"),
			BiasInitializer: readInitializer(r, "bias_initializer")}
		l.ValueDim = r.Int("value_dim", l.KeyDim)
		if v, ok := r.Value("output_shape"); ok && v != nil {
			l.OutputShape = readOne(r, "output_shape", 0)
		}
		// Keras writes the axes it resolved at build: (1,) for sequences.
		if v, ok := r.Value("attention_axes"); ok && v != nil && fmt.Sprint(v) != "[1]" {
			r.Fail("attention_axes", "%v is not supported by kerasgo (only attention over the steps axis, 1)", v)
		}
		r.Ignore("seed", "flash_attention")
		l.KernelRegularizer, l.BiasRegularizer = readRegularizer(r, "kernel_regularizer"), readRegularizer(r, "bias_regularizer")
		l.KernelConstraint, l.BiasConstraint = readConstraint(r, "kernel_constraint"), readConstraint(r, "bias_constraint")
		return l, nil
	})
}

func (*MultiHeadAttention) takesUnknownDims() {}
