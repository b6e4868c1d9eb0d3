package losses

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// Circle is keras.losses.Circle, a metric-learning loss (Sun et al.,
// 2020): the targets are integer class labels, one per sample, and the
// predictions L2-normalised embeddings (batch, dim), as a Dense layer
// without activation followed by layers.UnitNormalization gives. Within the
// batch, pairs of the same class are pulled together and pairs of
// different classes pushed apart, each pair weighted by how far it is
// from its optimum:
//
//	loss_i = softplus(logsumexp_{j same class} -Gamma·w⁺ᵢⱼ(Margin - dᵢⱼ)
//	                + logsumexp_{j other class} Gamma·w⁻ᵢⱼ(1 - Margin - dᵢⱼ))
//
// with dᵢⱼ = max(1 - eᵢ·eⱼ, 0) the cosine distance, w⁺ = max(Margin + d,
// 0) and w⁻ = max(1 + Margin - d, 0). As in Keras, a sample whose loss is
// 0 (one with no other sample of its class, or none of another) is left
// out of the batch's average (ValuesMask).
//
// Gamma 0 stands for Keras's 80 and Margin 0 for Keras's 0.4 (a margin
// of exactly 0 is not expressible; use a tiny one). KeepDiagonal is
// Keras's remove_diagonal=False: each sample also counts as its own
// positive pair.
type Circle struct {
	Gamma, Margin float64
	KeepDiagonal  bool
}

// Name returns "circle".
func (Circle) Name() string { return "circle" }

// settings returns Gamma and Margin with Keras's defaults for 0.
func (l Circle) settings() (gamma, margin float64) {
	gamma, margin = l.Gamma, l.Margin
	if gamma == 0 {
		gamma = 80
	}
	if margin == 0 {
		margin = 0.4
	}
	return gamma, margin
}

// Compute reduces the values as Keras's default reduction does, over the
// samples the mask keeps.
func (l Circle) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return Reduce(b, l, y, pred, nil)
}

// noPair stands in for logsumexp's -Inf where a row has no pair of a
// kind: exp of it is exactly 0, as of -Inf, but its gradient is 0 rather
// than NaN.
const noPair = -1e30

// Unreduced implements Weighted: one value per sample.
func (l Circle) Unreduced(b backend.Builder, y, pred backend.Value) backend.Value {
	gamma, margin := l.settings()
	n := pred.Shape()[0]
	labels := b.Reshape(y, backend.Shape{n, 1})
	one := b.Scalar(1)
	distances := b.Relu(b.Sub(one, ops.Matmul(b, pred, b.Transpose(pred, 1, 0))))
	positive := ops.Equal(b, labels, b.Transpose(labels, 1, 0))
	negative := b.Sub(one, positive)
	if !l.KeepDiagonal {
		positive = b.Mul(positive, b.Sub(one, ops.Eye(b, n, n, 0)))
	}
	positiveWeights := b.Relu(b.Mul(b.Add(b.Scalar(margin), distances), positive))
	negativeWeights := b.Relu(b.Mul(b.Sub(b.Scalar(1+margin), distances), negative))
	positiveTerms := b.Mul(b.Mul(positiveWeights, b.Sub(b.Scalar(margin), distances)), b.Scalar(-gamma))
	negativeTerms := b.Mul(b.Mul(negativeWeights, b.Sub(b.Scalar(1-margin), distances)), b.Scalar(gamma))
	fill := ops.Full(b, noPair, n, n)
	p := ops.Logsumexp(b, ops.Where(b, positive, positiveTerms, fill), ops.Axis(1))
	q := ops.Logsumexp(b, ops.Where(b, negative, negativeTerms, fill), ops.Axis(1))
	return ops.Softplus(b, b.Add(p, q))
}

// ValuesMask keeps the samples whose loss is above 0, as Keras's circle
// masks its result.
func (Circle) ValuesMask(b backend.Builder, values backend.Value) backend.Value {
	return b.Greater(b.StopGradient(values), b.Scalar(0))
}

// CheckTargets wants one integer label per sample, (batch,) or (batch,
// 1), and embeddings (batch, dim).
func (l Circle) CheckTargets(y []float32, ys, ps backend.Shape) error {
	gamma, margin := l.settings()
	if gamma < 0 {
		return settingOutOfRange("Circle", "gamma", l.Gamma, "> 0")
	}
	if margin < 0 {
		return settingOutOfRange("Circle", "margin", l.Margin, ">= 0")
	}
	if len(ps) != 2 {
		return fmt.Errorf("losses.Circle wants embeddings of shape (batch, dim), but the model's output is %v: end the model with a Dense layer and layers.UnitNormalization", ps)
	}
	if !(len(ys) == 1 || (len(ys) == 2 && ys[1] == 1)) {
		return fmt.Errorf("losses.Circle wants one integer class label per sample, shape (batch,), but the targets are %v", ys)
	}
	return wholeLabels(y)
}

// wholeLabels refuses a label that is not a whole number.
func wholeLabels(y []float32) error {
	for i, v := range y {
		if v != v || float32(int64(v)) != v {
			return fmt.Errorf("label %v at index %d is not a whole number: give integer class labels", v, i)
		}
	}
	return nil
}
