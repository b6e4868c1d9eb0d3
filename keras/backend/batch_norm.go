package backend

// BatchNormOps is an optional capability of an [Ops]: batch
// normalisation over the batch's own statistics (BatchNormalization in
// training) as a few fused ops. An engine implements it only if it
// matches [BatchNormReference] within the conformance tolerance; the
// checked Builder uses it when present and the reference otherwise.
type BatchNormOps interface {
	// BatchNormalize gets x (batch, ..., channels) and gamma and beta
	// (channels, or nil).
	BatchNormalize(x, gamma, beta Value, eps float64) (y, mean, variance Value, err error)
}

// BatchNormReference is batch normalisation over every axis of x but the
// last, written with Builder ops as Keras's BatchNormalization computes
// it in training:
//
//	mean = mean(x);  variance = mean((x - mean)²)
//	y = (x - mean) / sqrt(variance + eps) · gamma + beta
//
// gamma and beta may be nil (no scale, no offset).
func BatchNormReference(b Builder, x, gamma, beta Value, eps float64) (y, mean, variance Value) {
	axes := make([]int, len(x.Shape())-1)
	for i := range axes {
		axes[i] = i
	}
	mean = b.Mean(x, axes...)
	variance = b.Mean(b.Square(b.Sub(x, mean)), axes...)
	y = b.Div(b.Sub(x, mean), b.Sqrt(b.Add(variance, b.Scalar(eps))))
	if gamma != nil {
		y = b.Mul(y, gamma)
	}
	if beta != nil {
		y = b.Add(y, beta)
	}
	return y, mean, variance
}

func (c *checked) BatchNormalize(x, gamma, beta Value, eps float64) (Value, Value, Value) {
	if !c.normalizeArgs("BatchNormalize", 1, x, gamma, beta, eps) {
		f := failed{shape: shapeOf(x), dtype: c.ops.DType()}
		return f, f, f
	}
	out := c.inFloat32(func() []Value {
		fused, ok := c.ops.(BatchNormOps)
		if !ok {
			y, mean, variance := BatchNormReference(c, x, gamma, beta, eps)
			return []Value{y, mean, variance}
		}
		var mean, variance Value
		y := c.call("BatchNormalize", x.Shape(), func() (Value, error) {
			y, m, v, err := fused.BatchNormalize(x, gamma, beta, eps)
			mean, variance = m, v
			return y, err
		})
		if c.err != nil {
			return []Value{y, y, y}
		}
		return []Value{y, mean, variance}
	})
	return out[0], out[1], out[2]
}
