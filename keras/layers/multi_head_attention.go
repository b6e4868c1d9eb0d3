package layers

import (
	"fmt"
	"math"

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

	query, key, value, output denseWeights
	outs                      []backend.Shape // both outputs' shapes with ReturnAttentionScores
}

// denseWeights are one EinsumDense sub-layer's kernel and bias.
type denseWeights struct{ kernel, bias *Weight }

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

// Build checks the inputs and creates the four projections.
func (l *MultiHeadAttention) Build(inputs []backend.Shape) (backend.Shape, error) {
	if len(inputs) < 2 || len(inputs) > 4 {
		return nil, fmt.Errorf("expects query and value, optionally key and an attention mask; received %d inputs", len(inputs))
	}
	if l.NumHeads <= 0 || l.KeyDim <= 0 || l.ValueDim < 0 || l.OutputShape < 0 {
		return nil, fmt.Errorf("num_heads and key_dim must be positive, got %d and %d", l.NumHeads, l.KeyDim)
	}
	if l.Dropout < 0 || l.Dropout >= 1 {
		return nil, fmt.Errorf("dropout must be in [0, 1), got %g", l.Dropout)
	}
	q, v := inputs[0], inputs[1]
	k := v
	if len(inputs) > 2 {
		k = inputs[2]
	}
	for i, s := range []backend.Shape{q, v, k} {
		if len(s) != 3 || s[1] == 0 || s[2] <= 0 {
			return nil, fmt.Errorf("%s must be (batch, steps, features), received %v (attention over several axes is not supported)", []string{"query", "value", "key"}[i], s)
		}
	}
	if !sameLength(k[1], v[1]) {
		return nil, fmt.Errorf("key and value must have the same steps; received key %v and value %v", k, v)
	}
	if len(inputs) == 4 {
		if m := inputs[3]; len(m) != 3 || !sameLength(m[1], q[1]) || !sameLength(m[2], v[1]) {
			return nil, fmt.Errorf("attention mask has shape %v, expected (batch, %d, %d): (batch, query steps, value steps)", m, q[1], v[1])
		}
	}
	out := l.OutputShape
	if out == 0 {
		out = q[2]
	}
	h, dk, dv := l.NumHeads, l.KeyDim, l.valueDim()
	var err error
	add := func(name string, kernel, bias backend.Shape) (denseWeights, error) {
		var w denseWeights
		kinit, err := initializers.Get(l.KernelInitializer, initializers.GlorotUniform{})
		if err != nil {
			return w, err
		}
		if w.kernel, err = l.AddWeight(name+"/kernel", kernel, kinit); err != nil {
			return w, err
		}
		if err := regularize(w.kernel, "kernel", l.KernelRegularizer, l.KernelConstraint); err != nil {
			return w, err
		}
		if l.NoBias {
			if l.BiasRegularizer != nil || l.BiasConstraint != nil {
				return w, fmt.Errorf("a bias regularizer or constraint was given with use_bias=False (NoBias): drop it, or keep the biases")
			}
			return w, nil
		}
		binit, err := initializers.Get(l.BiasInitializer, initializers.Constant{})
		if err != nil {
			return w, err
		}
		if w.bias, err = l.AddWeight(name+"/bias", bias, binit); err != nil {
			return w, err
		}
		return w, regularize(w.bias, "bias", l.BiasRegularizer, l.BiasConstraint)
	}
	if l.query, err = add("query", backend.Shape{q[2], h, dk}, backend.Shape{h, dk}); err != nil {
		return nil, err
	}
	if l.key, err = add("key", backend.Shape{k[2], h, dk}, backend.Shape{h, dk}); err != nil {
		return nil, err
	}
	if l.value, err = add("value", backend.Shape{v[2], h, dv}, backend.Shape{h, dv}); err != nil {
		return nil, err
	}
	if l.output, err = add("attention_output", backend.Shape{h, dv, out}, backend.Shape{out}); err != nil {
		return nil, err
	}
	l.outs = nil
	if l.ReturnAttentionScores {
		l.outs = []backend.Shape{{q[0], q[1], out}, {q[0], h, q[1], v[1]}}
	}
	return backend.Shape{q[0], q[1], out}, nil
}

// OutputShapes gives the output's and the attention scores' shapes with
// ReturnAttentionScores, and nil (one output) otherwise.
func (l *MultiHeadAttention) OutputShapes() []backend.Shape { return l.outs }

// project computes x (batch, steps, features) times a (features, heads,
// dim) kernel plus bias, as (batch, heads, steps, dim).
func project(ctx *Context, x backend.Value, w denseWeights) backend.Value {
	b := ctx.B
	s, ks := x.Shape(), w.kernel.Shape
	y := b.MatMul(b.Reshape(x, backend.Shape{s[0] * s[1], s[2]}), b.Reshape(ctx.Weight(w.kernel), backend.Shape{ks[0], ks[1] * ks[2]}))
	if w.bias != nil {
		y = b.Add(y, b.Reshape(ctx.Weight(w.bias), backend.Shape{ks[1] * ks[2]}))
	}
	return b.Transpose(b.Reshape(y, backend.Shape{s[0], s[1], ks[1], ks[2]}), 0, 2, 1, 3)
}

// largeNegative is the score Keras gives a masked step (its Softmax's
// _large_negative_number in float32; dense attention subtracts it).
const largeNegative = -1e9

// Call attends.
func (l *MultiHeadAttention) Call(ctx *Context, in []backend.Value) backend.Value {
	y, _ := l.attend(ctx, in)
	return y
}

// CallOutputs returns the output and, with ReturnAttentionScores, the
// attention scores.
func (l *MultiHeadAttention) CallOutputs(ctx *Context, in []backend.Value) []backend.Value {
	y, scores := l.attend(ctx, in)
	if !l.ReturnAttentionScores {
		return []backend.Value{y}
	}
	return []backend.Value{y, scores}
}

// attend computes the output and the attention probabilities.
func (l *MultiHeadAttention) attend(ctx *Context, in []backend.Value) (backend.Value, backend.Value) {
	b := ctx.B
	query, value := in[0], in[1]
	key := value
	if len(in) > 2 {
		key = in[2]
	}
	qp := project(ctx, query, l.query)                       // (B, H, Tq, dk)
	k := project(ctx, key, l.key)                            // (B, H, Tk, dk)
	v := project(ctx, value, l.value)                        // (B, H, Tk, dv)
	q := b.Mul(qp, b.Scalar(1/math.Sqrt(float64(l.KeyDim)))) // scaled as Keras scales the query
	scores := b.BatchMatMul(q, b.Transpose(k, 0, 1, 3, 2))   // (B, H, Tq, Tk)
	qs := query.Shape()
	mask := l.attentionMask(ctx, in)
	if mask != nil {
		// Keras replaces a masked score (jnp.where, and its Softmax layer's
		// where) rather than adding to it: a query step with nothing to
		// attend to spreads evenly over the values.
		scores = b.Where(mask, scores, b.Scalar(largeNegative))
	}
	probs := b.Softmax(scores)
	if mask != nil && (l.Dropout > 0 || l.ReturnAttentionScores) {
		// Keras computes these through its Softmax layer, which zeroes the
		// masked probabilities, so such a query step attends to nothing
		// (with neither, jax.nn.dot_product_attention keeps the even row).
		probs = b.Mul(probs, mask)
	}
	attended := probs
	if ctx.Training && l.Dropout > 0 {
		attended = b.Dropout(probs, l.Dropout)
	}
	heads := b.Transpose(b.BatchMatMul(attended, v), 0, 2, 1, 3) // (B, Tq, H, dv)
	h, dv := l.NumHeads, l.valueDim()
	ks := l.output.kernel.Shape
	y := b.MatMul(b.Reshape(heads, backend.Shape{qs[0] * qs[1], h * dv}), b.Reshape(ctx.Weight(l.output.kernel), backend.Shape{h * dv, ks[2]}))
	if l.output.bias != nil {
		y = b.Add(y, ctx.Weight(l.output.bias))
	}
	y = b.Reshape(y, backend.Shape{qs[0], qs[1], ks[2]})
	ctx.activityPenalty(l.ActivityRegularizer, qp, k, v, y) // each projection's, as Keras's sublayers add them
	return y, probs
}

// attentionMask is Keras's _compute_attention_mask as 1 where a query
// step may attend to a value step and 0 elsewhere, (batch or 1, 1, query
// steps, value steps), or nil when nothing is masked: the caller's
// attention mask (any nonzero value attends, as Keras casts it to bool),
// the query's mask, the value's and the key's masks and the causal mask,
// all of which must allow the step.
func (l *MultiHeadAttention) attentionMask(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	qs, vs := in[0].Shape(), in[1].Shape()
	var mask backend.Value
	and := func(m backend.Value) {
		if mask == nil {
			mask = m
		} else {
			mask = b.Mul(mask, m)
		}
	}
	if len(in) == 4 {
		m := in[3]
		if m.DType() == backend.Int32 {
			m = b.Cast(m)
		}
		and(b.Where(b.Reshape(m, backend.Shape{qs[0], 1, qs[1], vs[1]}), b.Scalar(1), b.Scalar(0)))
	}
	if qm := ctx.Mask(0); qm != nil {
		and(b.Reshape(qm, backend.Shape{qs[0], 1, qs[1], 1}))
	}
	for i := 1; i <= 2 && i < len(in); i++ {
		if vm := ctx.Mask(i); vm != nil {
			and(b.Reshape(vm, backend.Shape{qs[0], 1, 1, vs[1]}))
		}
	}
	if l.UseCausalMask {
		and(b.Constant(causalMask(qs[1], vs[1]), backend.Shape{1, 1, qs[1], vs[1]}))
	}
	// Keras's call then takes the masks off the query, the value and the
	// key: a layer that reads one of them afterwards (a residual Add)
	// sees no mask, in Keras as here.
	for i := 0; i < 3 && i < len(in); i++ {
		ctx.SetKerasMask(in[i], nil)
	}
	return mask
}

// CallKwargs gives Keras's use_causal_mask and return_attention_scores
// call arguments when set.
func (l *MultiHeadAttention) CallKwargs() map[string]any {
	kw := map[string]any{}
	if l.UseCausalMask {
		kw["use_causal_mask"] = true
	}
	if l.ReturnAttentionScores {
		kw["return_attention_scores"] = true
	}
	if len(kw) == 0 {
		return nil
	}
	return kw
}

// SetCallKwarg reads use_causal_mask and return_attention_scores.
func (l *MultiHeadAttention) SetCallKwarg(key string, v any) bool {
	b, isBool := v.(bool)
	switch {
	case key == "use_causal_mask" && isBool:
		l.UseCausalMask = b
		return true
	case key == "return_attention_scores" && isBool:
		l.ReturnAttentionScores = b
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

// causalMask is Keras's lower-triangular mask: query step i may attend to
// value steps 0..i.
func causalMask(tq, tk int) []float64 {
	m := make([]float64, tq*tk)
	for i := range tq {
		for j := 0; j <= i && j < tk; j++ {
			m[i*tk+j] = 1
		}
	}
	return m
}

// SavedGroups keeps each projection's kernel and bias under its Keras
// sub-layer.
func (l *MultiHeadAttention) SavedGroups() []SavedGroup {
	var out []SavedGroup
	for _, g := range []struct {
		path string
		w    denseWeights
	}{{"query_dense", l.query}, {"key_dense", l.key}, {"value_dense", l.value}, {"output_dense", l.output}} {
		ws := []*Weight{g.w.kernel}
		if g.w.bias != nil {
			ws = append(ws, g.w.bias)
		}
		out = append(out, SavedGroup{Path: g.path, Weights: ws})
	}
	return out
}

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
