package losses

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// CTC is keras.losses.CTC, the connectionist temporal classification
// loss of sequence models whose output is not aligned with its labels
// (speech, handwriting). The targets are label sequences (batch,
// max_label_length) of whole numbers, 0 being the blank, which also pads
// a shorter sequence at its end; the predictions are logits (batch,
// steps, classes), not softmax probabilities. Every step of the output
// counts, as in Keras (its input_length is the output's length). It is
// ops.CtcLoss, one value per sequence.
type CTC struct{}

// Name returns "ctc".
func (CTC) Name() string { return "ctc" }

// Compute implements Loss.
func (l CTC) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return Reduce(b, l, y, pred, nil)
}

// Unreduced implements Weighted: one value per sequence.
func (CTC) Unreduced(b backend.Builder, y, pred backend.Value) backend.Value {
	ps := pred.Shape()
	labelLength := ops.Sum(b, ops.NotEqual(b, y, b.Scalar(0)), ops.Axis(-1))
	steps := ops.Full(b, float64(ps[1]), ps[0])
	return ops.CtcLoss(b, y, pred, labelLength, steps, 0)
}

// CheckTargets wants label sequences (batch, max_label_length) of
// classes of the output, blank padding only at their ends, and logits
// (batch, steps, classes).
func (CTC) CheckTargets(y []float32, ys, ps backend.Shape) error {
	if len(ps) != 3 {
		return fmt.Errorf("losses.CTC wants logits of shape (batch, steps, classes), but the model's output is %v", ps)
	}
	if len(ys) != 2 {
		return fmt.Errorf("losses.CTC wants label sequences of shape (batch, max_label_length), but the targets are %v", ys)
	}
	classes, width := ps[2], ys[1]
	for i, v := range y {
		if v != v || v < 0 || int(v) >= classes || float32(int(v)) != v {
			return fmt.Errorf("label %v at index %d is out of range: the model's output has %d classes, so labels must be whole numbers in [1, %d), 0 being the blank that pads", v, i, classes, classes)
		}
		if pos := i % width; v != 0 && pos > 0 && y[i-1] == 0 {
			return fmt.Errorf("sequence %d has label %v at position %d after the blank 0: 0 only pads a sequence at its end (CTC's blank is not a label)", i/width, v, pos)
		}
	}
	return nil
}
