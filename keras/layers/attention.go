package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// What Attention and AdditiveAttention share: Keras's BaseDenseAttention.
// Applied to query (batch, Tq, dim) and value (batch, Tv, dim), and
// optionally key (batch, Tv, dim; value if absent), they compute scores
// (batch, Tq, Tv), add -1e9 where the value's mask marks padding (and
// above the diagonal with UseCausalMask), softmax them, apply Dropout in
// training, and return the scores' weighting of the value (batch, Tq,
// dim), zeroed at padded query steps (the query's mask), as Keras does.
type denseAttention struct {
	UseScale      bool
	Dropout       float64
	UseCausalMask bool // Keras's use_causal_mask call argument, as a setting
	Base
}

func (a *denseAttention) build(inputs []backend.Shape) (backend.Shape, error) {
	if len(inputs) < 2 || len(inputs) > 3 {
		return nil, fmt.Errorf("expects [query, value] or [query, value, key]; received %d inputs", len(inputs))
	}
	q, v := inputs[0], inputs[1]
	k := v
	if len(inputs) == 3 {
		k = inputs[2]
	}
	for i, s := range []backend.Shape{q, v, k} {
		if len(s) != 3 || s[1] <= 0 || s[2] <= 0 {
			return nil, fmt.Errorf("%s must be (batch, steps, dim), received %v", []string{"query", "value", "key"}[i], s)
		}
	}
	if k[1] != v[1] || q[2] != k[2] {
		return nil, fmt.Errorf("query %v, value %v and key %v do not fit: key and value need the same steps, query and key the same dim", q, v, k)
	}
	if a.Dropout < 0 || a.Dropout >= 1 {
		return nil, fmt.Errorf("dropout must be in [0, 1), got %g", a.Dropout)
	}
	return backend.Shape{q[0], q[1], v[2]}, nil
}

// attend finishes the computation from the scores.
func (a *denseAttention) attend(ctx *Context, in []backend.Value, scores backend.Value) backend.Value {
	b := ctx.B
	qs, vs := in[0].Shape(), in[1].Shape()
	var keep backend.Value // 1 where the query step may attend to the value step
	if vm := ctx.Mask(1); vm != nil {
		keep = b.Reshape(vm, backend.Shape{qs[0], 1, vs[1]})
	}
	if a.UseCausalMask {
		causal := b.Constant(causalMask(qs[1], vs[1]), backend.Shape{1, qs[1], vs[1]})
		if keep == nil {
			keep = causal
		} else {
			keep = b.Mul(keep, causal)
		}
	}
	if keep != nil {
		scores = b.Add(scores, b.Mul(b.Sub(b.Scalar(1), keep), b.Scalar(largeNegative)))
	}
	weights := b.Softmax(scores)
	if ctx.Training && a.Dropout > 0 {
		weights = b.Mul(weights, dropoutMask(b, weights.Shape(), a.Dropout))
	}
	out := b.BatchMatMul(weights, in[1])
	if qm := ctx.Mask(0); qm != nil {
		out = b.Mul(out, b.Reshape(qm, backend.Shape{qs[0], qs[1], 1}))
	}
	return out
}

// key returns the key input (the value if absent).
func key(in []backend.Value) backend.Value {
	if len(in) == 3 {
		return in[2]
	}
	return in[1]
}

// CallKwargs gives Keras's use_causal_mask call argument when set.
func (a *denseAttention) CallKwargs() map[string]any {
	if a.UseCausalMask {
		return map[string]any{"use_causal_mask": true}
	}
	return nil
}

// SetCallKwarg reads use_causal_mask (and Keras's defaults of the other
// call arguments).
func (a *denseAttention) SetCallKwarg(k string, v any) bool {
	b, isBool := v.(bool)
	switch {
	case k == "use_causal_mask" && isBool:
		a.UseCausalMask = b
		return true
	case k == "return_attention_scores" && isBool && !b:
		return true
	}
	return false
}

// ComputeMask passes the query's mask on.
func (a *denseAttention) ComputeMask(_ *Context, _, m []backend.Value) backend.Value {
	return firstMask(m)
}

// Attention is dot-product attention, like keras.layers.Attention:
// scores = query·keyᵀ (times a learned scalar Scale with UseScale), or
// with ScoreMode "concat" scale*Σ tanh(query + key) weighted by a learned
// scalar.
type Attention struct {
	ScoreMode string // "dot" (default) or "concat"
	denseAttention

	scale, concatWeight *Weight
}

// ClassName returns "Attention".
func (*Attention) ClassName() string { return "Attention" }

func (a *Attention) scoreMode() string {
	if a.ScoreMode == "" {
		return "dot"
	}
	return a.ScoreMode
}

// Build checks the inputs and creates the scalars Keras creates.
func (a *Attention) Build(inputs []backend.Shape) (backend.Shape, error) {
	out, err := a.build(inputs)
	if err != nil {
		return nil, err
	}
	if m := a.scoreMode(); m != "dot" && m != "concat" {
		return nil, fmt.Errorf("score_mode must be \"dot\" or \"concat\", got %q", a.ScoreMode)
	}
	if a.UseScale {
		if a.scale, err = a.AddWeight("scale", backend.Shape{}, initializers.Constant{Value: 1}); err != nil {
			return nil, err
		}
	}
	if a.scoreMode() == "concat" {
		if a.concatWeight, err = a.AddWeight("concat_score_weight", backend.Shape{}, initializers.Constant{Value: 1}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Call computes the scores and attends.
func (a *Attention) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	q, k := in[0], key(in)
	var scores backend.Value
	if a.scoreMode() == "dot" {
		scores = b.BatchMatMul(q, b.Transpose(k, 0, 2, 1))
		if a.scale != nil {
			scores = b.Mul(scores, ctx.Weight(a.scale))
		}
	} else {
		sum := pairSums(b, q, k)
		if a.scale != nil {
			sum = b.Mul(sum, ctx.Weight(a.scale))
		}
		scores = b.Mul(b.Sum(b.Tanh(sum), 3), ctx.Weight(a.concatWeight))
	}
	return a.attend(ctx, in, scores)
}

// pairSums returns q[:, i] + k[:, j] for every pair: (batch, Tq, Tv, dim).
func pairSums(b backend.Builder, q, k backend.Value) backend.Value {
	qs, ks := q.Shape(), k.Shape()
	return b.Add(b.Reshape(q, backend.Shape{qs[0], qs[1], 1, qs[2]}), b.Reshape(k, backend.Shape{ks[0], 1, ks[1], ks[2]}))
}

// GetConfig returns Keras's config.
func (a *Attention) GetConfig() (serialization.Config, error) {
	return serialization.Config{"use_scale": a.UseScale, "score_mode": a.scoreMode(), "dropout": a.Dropout, "seed": nil}, nil
}

// AdditiveAttention is Bahdanau-style attention, like
// keras.layers.AdditiveAttention: scores = Σ scale*tanh(query + key), with
// a learned per-dim Scale (UseScale, Keras's default; set NoScale to drop
// it).
type AdditiveAttention struct {
	NoScale bool
	denseAttention

	scale *Weight
}

// ClassName returns "AdditiveAttention".
func (*AdditiveAttention) ClassName() string { return "AdditiveAttention" }

// Build checks the inputs and creates the scale (dim), initialised as
// Keras's glorot_uniform.
func (a *AdditiveAttention) Build(inputs []backend.Shape) (backend.Shape, error) {
	out, err := a.build(inputs)
	if err != nil {
		return nil, err
	}
	if !a.NoScale {
		if a.scale, err = a.AddWeight("scale", backend.Shape{inputs[0][2]}, initializers.GlorotUniform{}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Call computes the scores and attends.
func (a *AdditiveAttention) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	t := b.Tanh(pairSums(b, in[0], key(in)))
	if a.scale != nil {
		t = b.Mul(t, ctx.Weight(a.scale))
	}
	return a.attend(ctx, in, b.Sum(t, 3))
}

// GetConfig returns Keras's config.
func (a *AdditiveAttention) GetConfig() (serialization.Config, error) {
	return serialization.Config{"use_scale": !a.NoScale, "dropout": a.Dropout}, nil
}

func init() {
	mustRegister("Attention", func(r *serialization.Reader) (Layer, error) {
		a := &Attention{ScoreMode: r.String("score_mode", "dot")}
		a.UseScale, a.Dropout = r.Bool("use_scale", false), r.Float("dropout", 0)
		r.Ignore("seed")
		return a, nil
	})
	mustRegister("AdditiveAttention", func(r *serialization.Reader) (Layer, error) {
		a := &AdditiveAttention{NoScale: !r.Bool("use_scale", true)}
		a.Dropout = r.Float("dropout", 0)
		r.Ignore("seed")
		return a, nil
	})
}
