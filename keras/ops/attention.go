package ops

import "math"

// AttentionOptions are dot_product_attention's optional arguments.
type AttentionOptions struct {
	// Bias is added to the attention logits (broadcasting to (batch,
	// heads, queries, keys)); nil for none.
	Bias Value
	// Mask (broadcasting to (batch, heads, queries, keys)) keeps the
	// logits where it is not 0; nil for none.
	Mask Value
	// Scale multiplies the logits; 0 means 1/√head_dim, Keras's default.
	Scale float64
	// IsCausal lets query i attend only to keys 0..i (Keras's lower
	// triangle, from the first key also when there are more keys).
	IsCausal bool
}

// DotProductAttention is softmax(q·kᵀ·scale + bias, masked)·v over query
// (batch, queries, heads, dim), key and value (batch, keys, kvHeads,
// dim), Keras's ops.dot_product_attention: the output has the query's
// shape. Heads may be grouped (heads a multiple of kvHeads).
func DotProductAttention(b Builder, query, key, value Value, o AttentionOptions) Value {
	if missing(b, "DotProductAttention", []string{"query", "key", "value"}, query, key, value) {
		return b.Fail(nil, b.Err())
	}
	qs, ks, vs := query.Shape(), key.Shape(), value.Shape()
	if len(qs) != 4 || len(ks) != 4 || !ks.Equal(vs) || qs[0] != ks[0] || qs[3] != ks[3] || ks[2] == 0 || qs[2]%ks[2] != 0 {
		return failf(b, "DotProductAttention", qs, "query %v, key %v and value %v: want (batch, queries, heads, dim) and two of (batch, keys, kv_heads, dim), heads a multiple of kv_heads", qs, ks, vs)
	}
	heads, kvHeads, t, s, h := qs[2], ks[2], qs[1], ks[1], qs[3]
	q := b.Transpose(query, 0, 2, 1, 3) // (B, N, T, H)
	k := b.Transpose(key, 0, 2, 3, 1)   // (B, K, H, S)
	v := b.Transpose(value, 0, 2, 1, 3) // (B, K, S, H)
	if kvHeads != heads {
		r := heads / kvHeads
		k = Repeat(b, k, r, Axis(1))
		v = Repeat(b, v, r, Axis(1))
	}
	scale := o.Scale
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(h))
	}
	logits := b.Mul(b.BatchMatMul(q, k), scalar(b, scale)) // (B, N, T, S)
	if o.Bias != nil {
		logits = b.Add(logits, o.Bias)
	}
	keep := o.Mask
	if o.IsCausal {
		c := Tri(b, t, s, 0) // query i sees keys 0..i, as Keras's tril
		if keep == nil {
			keep = c
		} else {
			keep = b.Mul(notZero(b, keep), c)
		}
	}
	if keep != nil {
		logits = b.Where(b.StopGradient(keep), logits, scalar(b, -0.7*math.MaxFloat32))
	}
	weights := b.Softmax(logits)
	out := b.BatchMatMul(weights, v) // (B, N, T, H)
	return b.Transpose(out, 0, 2, 1, 3)
}
