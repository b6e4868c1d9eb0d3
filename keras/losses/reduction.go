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
// weights sw (nil for none) and reduced as l says (Keras's default unless
// l is Reduced): ReduceMasked without a mask.
func Reduce(b backend.Builder, l Weighted, y, pred, sw backend.Value) backend.Value {
	return ReduceMasked(b, l, y, pred, sw, nil)
}

// ReduceMasked is the batch's loss from l's values, as Keras's
// Loss.__call__ computes it (reduce_weighted_values): the sample weights
// sw and the mask the output carries (batch, steps; nil for none) become
// one weight per value, and the weighted values are reduced as l says.
//
// The weights: sw is (batch,), one per sample, broadcast over the
// values' other axes, or has the values' shape, as Keras's temporal
// weights (batch, steps). With a mask, Keras's default reduction weighs
// each data step total/valid and padding 0, so that the loss is the mean
// over the data steps (0 when there are none); the other reductions
// multiply by the mask as it is. Where Keras refuses a (batch,) weight
// beside a (batch, steps) mask, kerasgo broadcasts it over the steps.
//
// A weight or mask whose shape does not fit the values fails the builder
// with an error naming both shapes. A loss whose values are already one
// number (a function returning the batch's mean) is returned as it is, as
// Keras does; it cannot take sample weights.
func ReduceMasked(b backend.Builder, l Weighted, y, pred, sw, mask backend.Value) backend.Value {
	reduction := SumOverBatchSize
	if r, ok := l.(Reduced); ok && r.Reduction != "" {
		reduction = r.Reduction
	}
	v := l.Unreduced(b, y, pred)
	s := v.Shape()
	if len(s) == 0 {
		if sw != nil {
			return b.Fail(nil, fmt.Errorf("loss %s gives one number for the batch, so it cannot be weighted by sample weights: return one value per sample, or drop the weights", l.Name()))
		}
		return v
	}
	if own := valuesMask(b, l, v); own != nil {
		if mask == nil {
			mask = own
		} else if fm, err := fitWeights(b, mask, s, "the mask the output carries, of shape %v, does"); err == nil {
			mask = b.Mul(fm, own) // Keras's in_mask & out_mask
		} else {
			return b.Fail(nil, fmt.Errorf("loss %s: %w", l.Name(), err))
		}
	}
	var w backend.Value
	if sw != nil {
		var err error
		if w, err = fitWeights(b, sw, s, "sample weights of shape %v do"); err != nil {
			return b.Fail(nil, fmt.Errorf("loss %s: %w", l.Name(), err))
		}
	}
	if mask != nil {
		fm, err := fitWeights(b, mask, s, "the mask the output carries, of shape %v, does")
		if err != nil {
			return b.Fail(nil, fmt.Errorf("loss %s: %w", l.Name(), err))
		}
		if reduction == SumOverBatchSize {
			// Keras's apply_mask: data steps weigh total/valid, with
			// divide_no_nan's 0 when no step holds data (a mask holds 0
			// and 1, so valid is 0 or at least 1).
			total := b.Scalar(float64(mask.Shape().Size()))
			valid := b.Sum(mask)
			scale := b.Mul(b.Div(total, b.Maximum(valid, b.Scalar(1))), b.Minimum(valid, b.Scalar(1)))
			fm = b.Mul(fm, scale)
		}
		if w == nil {
			w = fm
		} else {
			w = b.Mul(w, fm)
		}
	}
	if w != nil {
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

// ValuesMasker is a loss whose values carry a mask of their own, as a
// Keras loss that calls set_keras_mask on what it returns: Circle masks
// the samples whose loss is 0. ReduceMasked combines it with the mask the
// output carries (both must hold), so that Keras's default reduction
// averages over the values the mask keeps.
type ValuesMasker interface {
	// ValuesMask returns 1 where a value counts and 0 where it does not,
	// shaped like values.
	ValuesMask(b backend.Builder, values backend.Value) backend.Value
}

// valuesMask is the mask l (or the loss a Reduced wraps) gives its
// values, or nil.
func valuesMask(b backend.Builder, l Weighted, values backend.Value) backend.Value {
	if r, ok := l.(Reduced); ok {
		l = r.Loss
	}
	if m, ok := l.(ValuesMasker); ok {
		return m.ValuesMask(b, values)
	}
	return nil
}

// fitWeights returns weights w (sample weights or a mask) shaped to
// multiply values of shape s, as Keras's squeeze_or_expand_to_same_rank
// does, and with kerasgo's broadcast of fewer axes (a (batch,) weight of
// sequence values): a trailing axis of 1 beyond s is dropped, missing
// trailing axes become 1, and each axis must then equal the values' or
// be 1. what describes w for errors, with a %v for its shape and its verb
// ("sample weights of shape %v do").
func fitWeights(b backend.Builder, w backend.Value, s backend.Shape, what string) (backend.Value, error) {
	ws := w.Shape()
	if len(ws) == len(s)+1 && ws[len(ws)-1] == 1 {
		ws = ws[:len(ws)-1]
	}
	if len(ws) > len(s) {
		return nil, fmt.Errorf(what+" not fit the loss's values of shape %v (one per sample and step): give at most one weight per value", w.Shape(), s)
	}
	shaped := ws.Clone()
	for len(shaped) < len(s) {
		shaped = append(shaped, 1)
	}
	for i := range shaped {
		if shaped[i] != s[i] && shaped[i] != 1 {
			return nil, fmt.Errorf(what+" not fit the loss's values of shape %v (one per sample and step)", w.Shape(), s)
		}
	}
	if !shaped.Equal(w.Shape()) {
		w = b.Reshape(w, shaped)
	}
	return w, nil
}
