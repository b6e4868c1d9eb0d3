package metrics

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// MeanIoU is the mean over classes of the intersection over union of
// predicted and true class regions, like keras.metrics.MeanIoU: a confusion
// matrix is summed over the epoch, and class i's IoU is
// cm[i][i] / (row i + column i - cm[i][i]), classes that never occur
// excluded from the mean. Targets are class indices (DenseYTrue: one-hot,
// Keras's sparse_y_true=False) and so are predictions (DenseYPred: class
// scores whose argmax is taken, Keras's sparse_y_pred=False).
type MeanIoU struct {
	NumClasses int // required
	DenseYTrue bool
	DenseYPred bool
	Label      string
}

// Name returns Label or "mean_io_u".
func (m MeanIoU) Name() string { return labelOr(m.Label, "mean_io_u") }

func (m MeanIoU) check(backend.Shape) error {
	if m.NumClasses < 2 {
		return fmt.Errorf("MeanIoU.NumClasses must be at least 2, got %d", m.NumClasses)
	}
	return nil
}

// Size is the confusion matrix: NumClasses².
func (m MeanIoU) Size() int { return m.NumClasses * m.NumClasses }

// classes flattens class indices or (with dense) the argmax of scores to
// one-hot rows (samples, NumClasses).
func (m MeanIoU) classes(b backend.Builder, v backend.Value, dense bool) backend.Value {
	if dense {
		v = b.ArgMax(v)
	}
	n := v.Shape().Size()
	return b.OneHot(b.Reshape(v, backend.Shape{n}), m.NumClasses)
}

// Totals implements Accumulator: the batch's confusion matrix, true class
// by predicted class.
func (m MeanIoU) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	t, p := m.classes(b, y, m.DenseYTrue), m.classes(b, pred, m.DenseYPred)
	cm := b.MatMul(b.Transpose(t, 1, 0), p)
	return b.Reshape(cm, backend.Shape{m.Size()})
}

// Result is Keras's MeanIoU.result.
func (m MeanIoU) Result(t []float64) float64 {
	c := m.NumClasses
	sum, valid := 0.0, 0
	for i := 0; i < c; i++ {
		row, col := 0.0, 0.0
		for j := 0; j < c; j++ {
			row += t[i*c+j]
			col += t[j*c+i]
		}
		union := row + col - t[i*c+i]
		if union > 0 {
			sum += t[i*c+i] / union
			valid++
		}
	}
	return divideNoNaN(sum, float64(valid))
}
