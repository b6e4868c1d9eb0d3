package losses

import (
	"github.com/kerasgo/kerasgo/keras/backend"
)

// CategoricalGeneralizedCrossEntropy is
// keras.losses.CategoricalGeneralizedCrossEntropy (Zhang and Sabuncu,
// 2018), a crossentropy robust to noisy labels: (1 - p^Q) / Q, p being
// the predicted probability of the target class. The targets are integer
// class indices, (batch,) or (batch, 1), as for
// SparseCategoricalCrossentropy. Q in (0, 1) moves the loss from
// crossentropy (Q near 0) to mean absolute error (Q near 1); 0 stands for
// Keras's default, 0.5.
type CategoricalGeneralizedCrossEntropy struct {
	Q float64
}

// Name returns "categorical_generalized_cross_entropy".
func (CategoricalGeneralizedCrossEntropy) Name() string {
	return "categorical_generalized_cross_entropy"
}

// q returns Q with Keras's default for 0.
func (l CategoricalGeneralizedCrossEntropy) q() float64 {
	if l.Q == 0 {
		return 0.5
	}
	return l.Q
}

// Compute implements Loss.
func (l CategoricalGeneralizedCrossEntropy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return Reduce(b, l, y, pred, nil)
}

// Unreduced implements Weighted: one value per sample.
func (l CategoricalGeneralizedCrossEntropy) Unreduced(b backend.Builder, y, pred backend.Value) backend.Value {
	s := y.Shape()
	if len(s) == len(pred.Shape()) && s[len(s)-1] == 1 {
		y = b.Reshape(y, s[:len(s)-1])
	}
	q := l.q()
	p := b.TakeAlongLastAxis(pred, y)
	return b.Div(b.Sub(b.Scalar(1), pow(b, p, q)), b.Scalar(q))
}

// CheckTargets wants class indices, as SparseCategoricalCrossentropy,
// and Q in (0, 1).
func (l CategoricalGeneralizedCrossEntropy) CheckTargets(y []float32, ys, ps backend.Shape) error {
	if q := l.q(); q <= 0 || q >= 1 {
		return settingOutOfRange("CategoricalGeneralizedCrossEntropy", "q", l.Q, "in (0, 1)")
	}
	return CheckClassIndices(y, ys, ps)
}
