package losses

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// Tversky is keras.losses.Tversky, Dice with false positives and false
// negatives weighed apart:
//
//	1 - TP / (TP + Alpha·FP + Beta·FN + ε)
//
// with TP = sum(y·p), FP = sum((1-p)·y) and FN = sum(p·(1-y)), as
// Keras's tversky writes them, over Axis (nil: every axis, one number
// for the batch, as Keras's axis=None). Alpha and Beta both 0 stand for
// Keras's defaults, 0.5 each (the loss is then Dice's); set either one
// and both are used as given.
type Tversky struct {
	Alpha, Beta float64
	Axis        []int
}

// Name returns "tversky".
func (Tversky) Name() string { return "tversky" }

// weights returns Alpha and Beta with Keras's defaults for the zero value.
func (l Tversky) weights() (alpha, beta float64) {
	if l.Alpha == 0 && l.Beta == 0 {
		return 0.5, 0.5
	}
	return l.Alpha, l.Beta
}

// Compute reduces the values as Keras's default reduction does.
func (l Tversky) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return Reduce(b, l, y, pred, nil)
}

// Unreduced implements Weighted: one value per entry the sums over Axis
// leave.
func (l Tversky) Unreduced(b backend.Builder, y, pred backend.Value) backend.Value {
	alpha, beta := l.weights()
	over := sumOver(l.Axis)
	one := b.Scalar(1)
	tp := ops.Sum(b, b.Mul(y, pred), over)
	fp := ops.Sum(b, b.Mul(b.Sub(one, pred), y), over)
	fn := ops.Sum(b, b.Mul(pred, b.Sub(one, y)), over)
	den := b.Add(b.Add(b.Add(tp, b.Mul(fp, b.Scalar(alpha))), b.Mul(fn, b.Scalar(beta))), b.Scalar(epsilon))
	return b.Sub(one, b.Div(tp, den))
}

// CheckTargets wants targets shaped like the output, axes within its
// rank and weights that are not negative.
func (l Tversky) CheckTargets(_ []float32, ys, ps backend.Shape) error {
	if l.Alpha < 0 {
		return settingOutOfRange("Tversky", "alpha", l.Alpha, ">= 0")
	}
	if l.Beta < 0 {
		return settingOutOfRange("Tversky", "beta", l.Beta, ">= 0")
	}
	if err := checkLossAxes("Tversky", l.Axis, ps); err != nil {
		return err
	}
	return sameShape(ys, ps)
}
