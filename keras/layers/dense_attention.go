package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
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
		if len(s) != 3 || s[1] == 0 || s[2] <= 0 {
			return nil, fmt.Errorf("%s must be (batch, steps, dim), received %v", []string{"query", "value", "key"}[i], s)
		}
	}
	if !sameLength(k[1], v[1]) || q[2] != k[2] {
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
		weights = b.Dropout(weights, a.Dropout)
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

// pairSums returns q[:, i] + k[:, j] for every pair: (batch, Tq, Tv, dim).
func pairSums(b backend.Builder, q, k backend.Value) backend.Value {
	qs, ks := q.Shape(), k.Shape()
	return b.Add(b.Reshape(q, backend.Shape{qs[0], qs[1], 1, qs[2]}), b.Reshape(k, backend.Shape{ks[0], 1, ks[1], ks[2]}))
}
