package regularizers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// L1L2 penalises L1 * sum(|x|) + L2 * sum(x²), like
// keras.regularizers.L1L2; a zero factor leaves its term out (Keras's
// defaults are 0 for both).
type L1L2 struct {
	L1, L2 float64
}

// ClassName returns "L1L2".
func (L1L2) ClassName() string { return "L1L2" }

// Penalty returns L1 * sum(|x|) + L2 * sum(x²).
func (r L1L2) Penalty(b backend.Builder, x backend.Value) backend.Value {
	p := b.Scalar(0)
	if r.L1 != 0 {
		p = b.Add(p, b.Mul(b.Scalar(r.L1), b.Sum(abs(b, x))))
	}
	if r.L2 != 0 {
		p = b.Add(p, b.Mul(b.Scalar(r.L2), b.Sum(b.Square(x))))
	}
	return p
}

// Config returns {"l1": L1, "l2": L2}.
func (r L1L2) Config() serialization.Config { return serialization.Config{"l1": r.L1, "l2": r.L2} }

// Check refuses a negative or non-finite factor.
func (r L1L2) Check() error {
	if err := checkFactor("L1L2", "l1", r.L1); err != nil {
		return err
	}
	return checkFactor("L1L2", "l2", r.L2)
}
