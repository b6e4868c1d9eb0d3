package metrics

import "github.com/kerasgo/kerasgo/keras/backend"

// Accuracy is keras.metrics.Accuracy: how often the prediction equals the
// target exactly, value by value (for predictions that are already labels;
// the name "accuracy" in Compile picks the binary, categorical or sparse
// accuracy instead, as in Keras).
type Accuracy struct{ Label string }

// Name returns Label or "accuracy".
func (m Accuracy) Name() string { return labelOr(m.Label, "accuracy") }

// Compute implements Sample: the fraction of each sample's values that
// match.
func (Accuracy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	if ys, ps := y.Shape(), pred.Shape(); len(ys) == len(ps)-1 {
		y = b.Reshape(y, append(ys.Clone(), 1)) // Keras's squeeze_or_expand_to_same_rank
	} else if len(ys) == len(ps)+1 && ys[len(ys)-1] == 1 {
		y = b.Reshape(y, ys[:len(ys)-1].Clone())
	}
	return b.Mean(b.Equal(y, pred), len(pred.Shape())-1)
}
