package losses

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Reduction is how a loss turns its values (one per sample, or per sample
// and position) into the batch's loss, Keras's reduction argument.
type Reduction string

// Keras's reductions.
const (
	// SumOverBatchSize is Keras's default: sum(values * weights) / count.
	SumOverBatchSize Reduction = "sum_over_batch_size"
	// Sum is sum(values * weights).
	Sum Reduction = "sum"
	// MeanWithSampleWeight is sum(values * weights) / sum(weights).
	MeanWithSampleWeight Reduction = "mean_with_sample_weight"
)

// Reduced is a loss with a reduction other than Keras's default, like
// keras.losses.MeanSquaredError(reduction="sum"):
// losses.Reduced{Loss: losses.MeanSquaredError{}, Reduction: losses.Sum}.
type Reduced struct {
	Loss      Weighted
	Reduction Reduction
}

// Name returns the wrapped loss's name.
func (r Reduced) Name() string { return r.Loss.Name() }

// Compute reduces the loss's values without weights.
func (r Reduced) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return Reduce(b, r, y, pred, nil)
}

// Unreduced returns the wrapped loss's values.
func (r Reduced) Unreduced(b backend.Builder, y, pred backend.Value) backend.Value {
	return r.Loss.Unreduced(b, y, pred)
}

// CheckTargets checks the targets as the wrapped loss does, and the
// reduction.
func (r Reduced) CheckTargets(y []float32, ys, ps backend.Shape) error {
	if err := r.check(); err != nil {
		return err
	}
	return r.Loss.CheckTargets(y, ys, ps)
}

func (r Reduced) check() error {
	switch r.Reduction {
	case SumOverBatchSize, Sum, MeanWithSampleWeight, "":
		return nil
	case "none":
		return fmt.Errorf("reduction \"none\" gives a loss per sample; training needs one number: use %q, %q or %q", SumOverBatchSize, Sum, MeanWithSampleWeight)
	}
	return fmt.Errorf("unknown reduction %q: use %q, %q or %q", r.Reduction, SumOverBatchSize, Sum, MeanWithSampleWeight)
}

// Reduce is the batch's loss from l's values, weighted by the sample
// weights sw (one per sample, broadcast over the values' other axes; nil
// for none) and reduced as l says (Keras's default unless l is Reduced).
func Reduce(b backend.Builder, l Weighted, y, pred, sw backend.Value) backend.Value {
	reduction := SumOverBatchSize
	if r, ok := l.(Reduced); ok && r.Reduction != "" {
		reduction = r.Reduction
	}
	v := l.Unreduced(b, y, pred)
	s := v.Shape()
	var w backend.Value
	if sw != nil {
		ws := backend.Shape{s[0]}
		for range s[1:] {
			ws = append(ws, 1)
		}
		w = b.Reshape(sw, ws)
		v = b.Mul(v, w)
	}
	total := b.Sum(v)
	switch reduction {
	case Sum:
		return total
	case MeanWithSampleWeight:
		if w == nil {
			return b.Div(total, b.Scalar(float64(s.Size())))
		}
		// Keras divides by the sum of the weights as given (one per
		// sample), 0 when they sum to 0 (divide_no_nan).
		return b.Div(total, b.Maximum(b.Sum(w), b.Scalar(1e-30)))
	}
	return b.Div(total, b.Scalar(float64(s.Size())))
}
