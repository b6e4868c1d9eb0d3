package metrics

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/losses"
)

// CosineSimilarity is keras.metrics.CosineSimilarity: the cosine of the
// angle between each sample's target and prediction over the last axis
// (1 when they point the same way; the loss of the same name is its
// negative).
type CosineSimilarity struct{ Label string }

// Name returns Label or "cosine_similarity".
func (m CosineSimilarity) Name() string { return labelOr(m.Label, "cosine_similarity") }

// Compute implements Sample.
func (CosineSimilarity) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return b.Neg(weighted(losses.CosineSimilarity()).Unreduced(b, y, pred))
}
