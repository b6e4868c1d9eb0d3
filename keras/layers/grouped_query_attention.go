package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// GroupedQueryAttention is Keras's grouped-query attention
// (keras.layers.GroupQueryAttention, whose Python class is
// GroupedQueryAttention; Ainslie et al. 2023): as
// MultiHeadAttention, but with NumKeyValueHeads key and value heads, each
// shared by NumQueryHeads/NumKeyValueHeads query heads, so the key and
// value projections are smaller (NumKeyValueHeads = 1 is multi-query
// attention). With UseGate, a sigmoid of another projection of the query
// gates each head's output before the output projection.
//
// It is applied as MultiHeadAttention: layers.Apply(gqa, q, v), or with a
// key and an attention mask; the inputs' masks and UseCausalMask narrow
// the attention in the same way. The weights have Keras's shapes: query
// (features, query heads, HeadDim), key and value (features, key-value
// heads, HeadDim), output (query heads, HeadDim, query features), with
// biases; the output has the query's width.
type GroupedQueryAttention struct {
	HeadDim           int     // required
	NumQueryHeads     int     // required
	NumKeyValueHeads  int     // required; divides NumQueryHeads
	Dropout           float64 // dropout on the attention probabilities in training
	NoBias            bool
	UseGate           bool   // Keras's use_gate
	UseCausalMask     bool   // Keras's use_causal_mask
	KernelInitializer string // default "glorot_uniform"
	BiasInitializer   string // default "zeros"
	// KernelRegularizer, BiasRegularizer, KernelConstraint and
	// BiasConstraint apply to every projection's kernel and bias, as
	// Keras's do; the layer's ActivityRegularizer penalises each
	// projection's output, as in Keras.
	KernelRegularizer, BiasRegularizer regularizers.Regularizer
	KernelConstraint, BiasConstraint   constraints.Constraint
	// ReturnAttentionScores is Keras's return_attention_scores call
	// argument as a setting: a second output, the attention
	// probabilities (batch, query heads, query steps, value steps).
	ReturnAttentionScores bool
	Base

	core attentionCore
}

// penalizesInnerActivity: the activity regularizer penalises the
// projections' outputs.
func (*GroupedQueryAttention) penalizesInnerActivity() {}

// ClassName returns "GroupQueryAttention", the name Keras exports the
// class under and writes in its configs.
func (*GroupedQueryAttention) ClassName() string { return "GroupQueryAttention" }

// pythonClassName is the Python class's name, from which Keras names the
// layer (grouped_query_attention) and its place in a weights file.
func (*GroupedQueryAttention) pythonClassName() string { return "GroupedQueryAttention" }

func (l *GroupedQueryAttention) settings() attentionCore {
	return attentionCore{heads: l.NumQueryHeads, kvHeads: l.NumKeyValueHeads, keyDim: l.HeadDim, valueDim: l.HeadDim, dropout: l.Dropout,
		noBias: l.NoBias, gated: l.UseGate, causal: l.UseCausalMask, returnScores: l.ReturnAttentionScores, kernelInit: l.KernelInitializer, biasInit: l.BiasInitializer,
		kernelReg: l.KernelRegularizer, biasReg: l.BiasRegularizer, kernelCon: l.KernelConstraint, biasCon: l.BiasConstraint}
}

// Build checks the inputs and creates the projections.
func (l *GroupedQueryAttention) Build(inputs []backend.Shape) (backend.Shape, error) {
	l.core = l.settings()
	return l.core.build(&l.Base, inputs, func() error {
		if l.HeadDim <= 0 || l.NumQueryHeads <= 0 || l.NumKeyValueHeads <= 0 {
			return fmt.Errorf("head_dim, num_query_heads and num_key_value_heads must be positive, got %d, %d and %d", l.HeadDim, l.NumQueryHeads, l.NumKeyValueHeads)
		}
		if l.NumQueryHeads%l.NumKeyValueHeads != 0 {
			return fmt.Errorf("num_query_heads (%d) must be divisible by num_key_value_heads (%d), as in Keras", l.NumQueryHeads, l.NumKeyValueHeads)
		}
		return nil
	})
}

// OutputShapes gives the output's and the attention scores' shapes with
// ReturnAttentionScores, and nil (one output) otherwise.
func (l *GroupedQueryAttention) OutputShapes() []backend.Shape { return l.core.outs }

// Call attends.
func (l *GroupedQueryAttention) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallOutputs(ctx, in)[0]
}

// CallOutputs returns the output and, with ReturnAttentionScores, the
// attention scores.
func (l *GroupedQueryAttention) CallOutputs(ctx *Context, in []backend.Value) []backend.Value {
	c := l.settings()
	c.query, c.key, c.value, c.gate, c.output = l.core.query, l.core.key, l.core.value, l.core.gate, l.core.output
	return c.call(ctx, l.ActivityRegularizer, in)
}

// CallKwargs gives Keras's use_causal_mask and return_attention_scores
// call arguments when set.
func (l *GroupedQueryAttention) CallKwargs() map[string]any {
	return attentionCallKwargs(l.UseCausalMask, l.ReturnAttentionScores)
}

// SetCallKwarg reads use_causal_mask and return_attention_scores.
func (l *GroupedQueryAttention) SetCallKwarg(key string, v any) bool {
	return setAttentionCallKwarg(key, v, &l.UseCausalMask, &l.ReturnAttentionScores)
}

// ComputeMask passes the query's mask on.
func (l *GroupedQueryAttention) ComputeMask(_ *Context, _, m []backend.Value) backend.Value {
	return firstMask(m)
}

// PositionalInputs: Keras calls gqa(query, value, key, attention_mask)
// and builds it with build(query_shape, value_shape, key_shape).
func (*GroupedQueryAttention) PositionalInputs() []string {
	return []string{"query_shape", "value_shape", "key_shape"}
}

// SavedGroups keeps each projection under its Keras sub-layer,
// attribute names as Keras saves them (_query_dense, ...).
func (l *GroupedQueryAttention) SavedGroups() []SavedGroup { return l.core.savedGroups("_") }

// GetConfig returns Keras's GroupedQueryAttention config.
func (l *GroupedQueryAttention) GetConfig() (serialization.Config, error) {
	k, err := initializers.Serialize(l.KernelInitializer, "glorot_uniform")
	if err != nil {
		return nil, err
	}
	bi, err := initializers.Serialize(l.BiasInitializer, "zeros")
	if err != nil {
		return nil, err
	}
	cfg := serialization.Config{"head_dim": l.HeadDim, "num_query_heads": l.NumQueryHeads, "num_key_value_heads": l.NumKeyValueHeads,
		"use_bias": !l.NoBias, "use_gate": l.UseGate, "sliding_window": nil, "dropout": l.Dropout,
		"kernel_initializer": k, "bias_initializer": bi, "activity_regularizer": nil, "seed": nil}
	return cfg, penaltiesConfig(cfg, map[string]regularizers.Regularizer{"kernel": l.KernelRegularizer, "bias": l.BiasRegularizer},
		map[string]constraints.Constraint{"kernel": l.KernelConstraint, "bias": l.BiasConstraint})
}

func init() {
	mustRegister("GroupQueryAttention", func(r *serialization.Reader) (Layer, error) {
		l := &GroupedQueryAttention{HeadDim: r.PositiveInt("head_dim", 0), NumQueryHeads: r.PositiveInt("num_query_heads", 0),
			NumKeyValueHeads: r.PositiveInt("num_key_value_heads", 0), Dropout: r.Float("dropout", 0), NoBias: !r.Bool("use_bias", true),
			UseGate: r.Bool("use_gate", false), KernelInitializer: readInitializer(r, "kernel_initializer"), BiasInitializer: readInitializer(r, "bias_initializer")}
		r.ExpectNull("sliding_window")
		r.Ignore("seed", "flash_attention")
		l.KernelRegularizer, l.BiasRegularizer = readRegularizer(r, "kernel_regularizer"), readRegularizer(r, "bias_regularizer")
		l.KernelConstraint, l.BiasConstraint = readConstraint(r, "kernel_constraint"), readConstraint(r, "bias_constraint")
		return l, nil
	})
}

func (*GroupedQueryAttention) takesUnknownDims() {}
