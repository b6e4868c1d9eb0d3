package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/regularizers"
)

// What MultiHeadAttention and GroupedQueryAttention share: the query,
// key, value and output projections (Keras's EinsumDense sub-layers),
// the scaled dot products over heads, Keras's attention mask, dropout on
// the probabilities, and the saved layout. Grouped-query attention has
// fewer key and value heads than query heads, each shared by
// heads/kvHeads query heads in turn (Keras's ops.repeat on the heads),
// and may gate the heads' outputs by a sigmoid of another projection of
// the query.

// denseWeights are one EinsumDense sub-layer's kernel and bias.
type denseWeights struct{ kernel, bias *Weight }

// attentionCore is an attention layer's settings and weights.
type attentionCore struct {
	heads, kvHeads, keyDim, valueDim, outDim int
	dropout                                  float64
	noBias, gated, causal, returnScores      bool
	kernelInit, biasInit                     string
	kernelReg, biasReg                       regularizers.Regularizer
	kernelCon, biasCon                       constraints.Constraint

	query, key, value, gate, output denseWeights
	outs                            []backend.Shape // both outputs' shapes with returnScores
}

// build checks the inputs (query, value, optionally key and an attention
// mask) and then, with check, the layer's own settings, and creates the
// projections' weights on base.
func (c *attentionCore) build(base *Base, inputs []backend.Shape, check func() error) (backend.Shape, error) {
	if len(inputs) < 2 || len(inputs) > 4 {
		return nil, fmt.Errorf("expects query and value, optionally key and an attention mask; received %d inputs", len(inputs))
	}
	if err := check(); err != nil {
		return nil, err
	}
	if c.dropout < 0 || c.dropout >= 1 {
		return nil, fmt.Errorf("dropout must be in [0, 1), got %g", c.dropout)
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
	out := c.outDim
	if out == 0 {
		out = q[2]
	}
	h, hkv, dk, dv := c.heads, c.kvHeads, c.keyDim, c.valueDim
	var err error
	add := func(name string, kernel, bias backend.Shape) (denseWeights, error) {
		var w denseWeights
		kinit, err := initializers.Get(c.kernelInit, initializers.GlorotUniform{})
		if err != nil {
			return w, err
		}
		if w.kernel, err = base.AddWeight(name+"/kernel", kernel, kinit); err != nil {
			return w, err
		}
		if err := regularize(w.kernel, "kernel", c.kernelReg, c.kernelCon); err != nil {
			return w, err
		}
		if c.noBias {
			if c.biasReg != nil || c.biasCon != nil {
				return w, fmt.Errorf("a bias regularizer or constraint was given with use_bias=False (NoBias): drop it, or keep the biases")
			}
			return w, nil
		}
		binit, err := initializers.Get(c.biasInit, initializers.Constant{})
		if err != nil {
			return w, err
		}
		if w.bias, err = base.AddWeight(name+"/bias", bias, binit); err != nil {
			return w, err
		}
		return w, regularize(w.bias, "bias", c.biasReg, c.biasCon)
	}
	if c.query, err = add("query", backend.Shape{q[2], h, dk}, backend.Shape{h, dk}); err != nil {
		return nil, err
	}
	if c.key, err = add("key", backend.Shape{k[2], hkv, dk}, backend.Shape{hkv, dk}); err != nil {
		return nil, err
	}
	if c.gated {
		if c.gate, err = add("gate", backend.Shape{q[2], h, dv}, backend.Shape{h, dv}); err != nil {
			return nil, err
		}
	}
	if c.value, err = add("value", backend.Shape{v[2], hkv, dv}, backend.Shape{hkv, dv}); err != nil {
		return nil, err
	}
	if c.output, err = add("attention_output", backend.Shape{h, dv, out}, backend.Shape{out}); err != nil {
		return nil, err
	}
	c.outs = nil
	if c.returnScores {
		c.outs = []backend.Shape{{q[0], q[1], out}, {q[0], h, q[1], v[1]}}
	}
	return backend.Shape{q[0], q[1], out}, nil
}

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

// call returns the output and, with returnScores, the attention scores;
// activity is the layer's activity regularizer, which penalises each
// projection's output as Keras's sub-layers do.
func (c *attentionCore) call(ctx *Context, activity regularizers.Regularizer, in []backend.Value) []backend.Value {
	y, scores := c.attend(ctx, activity, in)
	if !c.returnScores {
		return []backend.Value{y}
	}
	return []backend.Value{y, scores}
}

// attend computes the output and the attention probabilities.
func (c *attentionCore) attend(ctx *Context, activity regularizers.Regularizer, in []backend.Value) (backend.Value, backend.Value) {
	b := ctx.B
	query, value := in[0], in[1]
	key := value
	if len(in) > 2 {
		key = in[2]
	}
	qp := project(ctx, query, c.query) // (B, H, Tq, dk)
	k := project(ctx, key, c.key)      // (B, Hkv, Tk, dk)
	v := project(ctx, value, c.value)  // (B, Hkv, Tk, dv)
	penalized := []backend.Value{qp, k, v}
	if repeats := c.heads / c.kvHeads; repeats > 1 {
		k, v = ops.Repeat(b, k, repeats, ops.Axis(1)), ops.Repeat(b, v, repeats, ops.Axis(1))
	}
	q := b.Mul(qp, b.Scalar(1/math.Sqrt(float64(c.keyDim)))) // scaled as Keras scales the query
	scores := b.BatchMatMul(q, b.Transpose(k, 0, 1, 3, 2))   // (B, H, Tq, Tk)
	qs := query.Shape()
	mask := c.attentionMask(ctx, in)
	if mask != nil {
		// Keras replaces a masked score (jnp.where, and its Softmax layer's
		// where) rather than adding to it: a query step with nothing to
		// attend to spreads evenly over the values.
		scores = b.Where(mask, scores, b.Scalar(largeNegative))
	}
	probs := b.Softmax(scores)
	if mask != nil && (c.dropout > 0 || c.returnScores) {
		// Keras computes these through its Softmax layer, which zeroes the
		// masked probabilities, so such a query step attends to nothing
		// (with neither, jax.nn.dot_product_attention keeps the even row).
		probs = b.Mul(probs, mask)
	}
	attended := probs
	if ctx.Training && c.dropout > 0 {
		attended = b.Dropout(probs, c.dropout)
	}
	heads := b.BatchMatMul(attended, v) // (B, H, Tq, dv)
	if c.gated {
		g := b.Sigmoid(project(ctx, query, c.gate))
		penalized = append(penalized, g)
		heads = b.Mul(heads, g)
	}
	heads = b.Transpose(heads, 0, 2, 1, 3) // (B, Tq, H, dv)
	h, dv := c.heads, c.valueDim
	ks := c.output.kernel.Shape
	y := b.MatMul(b.Reshape(heads, backend.Shape{qs[0] * qs[1], h * dv}), b.Reshape(ctx.Weight(c.output.kernel), backend.Shape{h * dv, ks[2]}))
	if c.output.bias != nil {
		y = b.Add(y, ctx.Weight(c.output.bias))
	}
	y = b.Reshape(y, backend.Shape{qs[0], qs[1], ks[2]})
	ctx.activityPenalty(activity, append(penalized, y)...) // each projection's, as Keras's sublayers add them
	return y, probs
}

// attentionMask is Keras's _compute_attention_mask as 1 where a query
// step may attend to a value step and 0 elsewhere, (batch or 1, 1, query
// steps, value steps), or nil when nothing is masked: the caller's
// attention mask (any nonzero value attends, as Keras casts it to bool),
// the query's mask, the value's and the key's masks and the causal mask,
// all of which must allow the step.
func (c *attentionCore) attentionMask(ctx *Context, in []backend.Value) backend.Value {
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
	if c.causal {
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

// savedGroups keeps each projection's kernel and bias under its Keras
// sub-layer (query_dense, key_dense, value_dense, output_dense, and
// gate_dense when gated), each name after prefix: MultiHeadAttention's
// are saved under its properties' names, GroupedQueryAttention's under
// its attributes' (_query_dense, ...).
func (c *attentionCore) savedGroups(prefix string) []SavedGroup {
	var out []SavedGroup
	groups := []struct {
		path string
		w    denseWeights
	}{{"query_dense", c.query}, {"key_dense", c.key}, {"value_dense", c.value}, {"output_dense", c.output}}
	if c.gated {
		groups = append(groups, struct {
			path string
			w    denseWeights
		}{"gate_dense", c.gate})
	}
	for _, g := range groups {
		ws := []*Weight{g.w.kernel}
		if g.w.bias != nil {
			ws = append(ws, g.w.bias)
		}
		out = append(out, SavedGroup{Path: prefix + g.path, Weights: ws})
	}
	return out
}
