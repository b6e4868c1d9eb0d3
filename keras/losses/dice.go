package losses

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// Dice is keras.losses.Dice, the overlap loss of segmentation:
//
//	1 - 2·sum(y·p) / (sum(y) + sum(p) + ε)
//
// with the sums over Axis. Axis nil is Keras's axis=None: every axis, so
// the loss is one number for the whole batch (and takes no sample
// weights); Axis [1, 2, 3] gives one value per image, averaged over the
// batch as Keras's default reduction does.
type Dice struct {
	Axis []int
}

// Name returns "dice".
func (Dice) Name() string { return "dice" }

// Compute reduces the values as Keras's default reduction does.
func (l Dice) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return Reduce(b, l, y, pred, nil)
}

// Unreduced implements Weighted: one value per entry the sums over Axis
// leave.
func (l Dice) Unreduced(b backend.Builder, y, pred backend.Value) backend.Value {
	over := sumOver(l.Axis)
	intersection := ops.Sum(b, b.Mul(y, pred), over)
	total := b.Add(b.Add(ops.Sum(b, y, over), ops.Sum(b, pred, over)), b.Scalar(epsilon))
	return b.Sub(b.Scalar(1), b.Div(b.Mul(intersection, b.Scalar(2)), total))
}

// CheckTargets wants targets shaped like the output and axes within its
// rank.
func (l Dice) CheckTargets(_ []float32, ys, ps backend.Shape) error {
	if err := checkLossAxes("Dice", l.Axis, ps); err != nil {
		return err
	}
	return sameShape(ys, ps)
}
