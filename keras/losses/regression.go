package losses

import "github.com/kerasgo/kerasgo/keras/backend"

// abs is |x| from the op set: max(x, -x).
func abs(b backend.Builder, x backend.Value) backend.Value { return b.Maximum(x, b.Neg(x)) }

// MeanAbsoluteError is the mean of |y - pred| over the last axis, like
// keras.losses.MeanAbsoluteError ("mae").
type MeanAbsoluteError struct{}

// Name returns "mean_absolute_error".
func (MeanAbsoluteError) Name() string { return "mean_absolute_error" }

// Compute implements Loss.
func (l MeanAbsoluteError) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return b.Mean(l.Unreduced(b, y, pred))
}

// Unreduced implements Weighted.
func (MeanAbsoluteError) Unreduced(b backend.Builder, y, pred backend.Value) backend.Value {
	return b.Mean(abs(b, b.Sub(y, pred)), len(pred.Shape())-1)
}

// CheckTargets wants targets shaped like the output.
func (MeanAbsoluteError) CheckTargets(_ []float32, ys, ps backend.Shape) error {
	return sameShape(ys, ps)
}

// Huber is quadratic for errors up to Delta and linear beyond, like
// keras.losses.Huber: 0.5e² for |e| <= Delta, Delta(|e| - 0.5 Delta)
// otherwise, averaged over the last axis.
type Huber struct {
	Delta float64 // default 1
}

// Name returns "huber_loss", Keras's name.
func (Huber) Name() string { return "huber_loss" }

// Compute implements Loss, as 0.5q² + Delta(|e| - q) with q = min(|e|, Delta).
func (h Huber) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return b.Mean(h.Unreduced(b, y, pred))
}

// Unreduced implements Weighted.
func (h Huber) Unreduced(b backend.Builder, y, pred backend.Value) backend.Value {
	d := h.Delta
	if d == 0 {
		d = 1
	}
	a := abs(b, b.Sub(y, pred))
	q := b.Minimum(a, b.Scalar(d))
	l := b.Add(b.Mul(b.Square(q), b.Scalar(0.5)), b.Mul(b.Sub(a, q), b.Scalar(d)))
	return b.Mean(l, len(pred.Shape())-1)
}

// CheckTargets wants targets shaped like the output.
func (Huber) CheckTargets(_ []float32, ys, ps backend.Shape) error {
	return sameShape(ys, ps)
}
