package metrics

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// TopKCategoricalAccuracy is the fraction of samples whose one-hot target
// class is among the K most probable predicted classes, like
// keras.metrics.TopKCategoricalAccuracy.
type TopKCategoricalAccuracy struct {
	K     int // default 5
	Label string
}

// Name returns Label or "top_k_categorical_accuracy".
func (m TopKCategoricalAccuracy) Name() string { return labelOr(m.Label, "top_k_categorical_accuracy") }

func (m TopKCategoricalAccuracy) k() int { return kOr5(m.K) }

func kOr5(k int) int {
	if k == 0 {
		return 5
	}
	return k
}

// Compute implements Sample.
func (m TopKCategoricalAccuracy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return inTopK(b, b.Sum(b.Mul(y, pred), len(pred.Shape())-1), pred, m.k())
}

func (m TopKCategoricalAccuracy) check(out backend.Shape) error { return checkK(m.k()) }

func checkK(k int) error {
	if k < 1 {
		return fmt.Errorf("k must be positive, got %d", k)
	}
	return nil
}

// inTopK is 1 where fewer than k classes score above the target's score
// (Keras's in_top_k; ties count in the target's favour).
func inTopK(b backend.Builder, target, pred backend.Value, k int) backend.Value {
	last := len(pred.Shape()) - 1
	column := b.Reshape(target, append(target.Shape().Clone(), 1))
	above := b.Sum(b.Greater(pred, column), last)
	return b.Greater(b.Scalar(float64(k)-0.5), above)
}

// SparseTopKCategoricalAccuracy is TopKCategoricalAccuracy with integer
// class targets, like keras.metrics.SparseTopKCategoricalAccuracy.
type SparseTopKCategoricalAccuracy struct {
	K     int // default 5
	Label string
}

// Name returns Label or "sparse_top_k_categorical_accuracy".
func (m SparseTopKCategoricalAccuracy) Name() string {
	return labelOr(m.Label, "sparse_top_k_categorical_accuracy")
}

// Compute implements Sample.
func (m SparseTopKCategoricalAccuracy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	s, classes := y.Shape(), pred.Shape()[len(pred.Shape())-1]
	if len(s) == len(pred.Shape()) && s[len(s)-1] == 1 {
		y = b.Reshape(y, s[:len(s)-1])
	}
	return inTopK(b, b.Sum(b.Mul(b.OneHot(y, classes), pred), len(pred.Shape())-1), pred, kOr5(m.K))
}

func (m SparseTopKCategoricalAccuracy) check(out backend.Shape) error { return checkK(kOr5(m.K)) }
