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

// Totals implements Accumulator: the batch's confusion matrix, true class
// by predicted class.
func (m MeanIoU) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	return confusionMatrix(b, y, pred, m.NumClasses, m.DenseYTrue, m.DenseYPred)
}

// Result is Keras's MeanIoU.result.
func (m MeanIoU) Result(t []float64) float64 { return iouResult(t, m.NumClasses, nil) }

// iouResult is Keras's IoU.result over the confusion matrix cm (true class
// by predicted class, c×c): the mean over the target classes (nil: all)
// of tp / (tp + fp + fn + ε), classes that never occur left out.
func iouResult(cm []float64, c int, targets []int) float64 {
	if targets == nil {
		targets = make([]int, c)
		for i := range targets {
			targets[i] = i
		}
	}
	sum, valid := 0.0, 0.0
	for _, i := range targets {
		row, col := 0.0, 0.0
		for j := 0; j < c; j++ {
			row += cm[i*c+j]
			col += cm[j*c+i]
		}
		union := row + col - cm[i*c+i]
		if union > 1e-9 {
			sum += cm[i*c+i] / (union + 1e-7)
			valid++
		}
	}
	return sum / (valid + 1e-7)
}

// confusionMatrix is the batch's confusion matrix of class indices (or,
// dense, the argmax of scores) t and p, true class by predicted class,
// flattened; indices outside [0, c) count nowhere, as in Keras.
func confusionMatrix(b backend.Builder, y, pred backend.Value, c int, denseY, denseP bool) backend.Value {
	classes := func(v backend.Value, dense bool) backend.Value {
		if dense {
			v = b.ArgMax(v)
		}
		n := v.Shape().Size()
		return b.OneHot(b.Reshape(v, backend.Shape{n}), c)
	}
	cm := b.MatMul(b.Transpose(classes(y, denseY), 1, 0), classes(pred, denseP))
	return b.Reshape(cm, backend.Shape{c * c})
}

// checkClassIDs refuses target class IDs outside [0, classes).
func checkClassIDs(metric string, ids []int, classes int) error {
	if len(ids) == 0 {
		return fmt.Errorf("%s needs TargetClassIDs, the classes whose IoU it averages", metric)
	}
	for _, id := range ids {
		if id < 0 || id >= classes {
			return fmt.Errorf("%s: target class id %d is out of range, which is [0, %d)", metric, id, classes)
		}
	}
	return nil
}

// IoU is keras.metrics.IoU: the mean of the intersection over union of
// the TargetClassIDs classes, from a confusion matrix summed over the
// epoch. Targets and predictions are class indices, or with DenseYTrue
// and DenseYPred (Keras's sparse_y_true and sparse_y_pred False) scores
// whose argmax is taken.
type IoU struct {
	NumClasses     int
	TargetClassIDs []int
	DenseYTrue     bool
	DenseYPred     bool
	Label          string
}

// Name returns Label or "io_u".
func (m IoU) Name() string { return labelOr(m.Label, "io_u") }

func (m IoU) check(backend.Shape) error {
	if m.NumClasses < 2 {
		return fmt.Errorf("IoU.NumClasses must be at least 2, got %d", m.NumClasses)
	}
	return checkClassIDs("IoU", m.TargetClassIDs, m.NumClasses)
}

// Size is the confusion matrix: NumClasses².
func (m IoU) Size() int { return m.NumClasses * m.NumClasses }

// Totals implements Accumulator.
func (m IoU) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	return confusionMatrix(b, y, pred, m.NumClasses, m.DenseYTrue, m.DenseYPred)
}

// Result is Keras's IoU.result.
func (m IoU) Result(t []float64) float64 { return iouResult(t, m.NumClasses, m.TargetClassIDs) }

// BinaryIoU is keras.metrics.BinaryIoU: IoU over two classes, a
// prediction being class 1 at or above Threshold (0: Keras's 0.5) and a
// target class 1 when it is 1. TargetClassIDs nil is Keras's [0, 1]:
// the mean of both classes' IoU.
type BinaryIoU struct {
	TargetClassIDs []int
	Threshold      float64
	Label          string
}

// Name returns Label or "binary_io_u".
func (m BinaryIoU) Name() string { return labelOr(m.Label, "binary_io_u") }

func (m BinaryIoU) targets() []int {
	if m.TargetClassIDs == nil {
		return []int{0, 1}
	}
	return m.TargetClassIDs
}

func (m BinaryIoU) check(backend.Shape) error {
	if m.Threshold < 0 || m.Threshold > 1 {
		return fmt.Errorf("BinaryIoU: threshold=%v is out of range: it must be in [0, 1]", m.Threshold)
	}
	return checkClassIDs("BinaryIoU", m.targets(), 2)
}

// Size is the 2×2 confusion matrix.
func (BinaryIoU) Size() int { return 4 }

// Totals implements Accumulator.
func (m BinaryIoU) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	p := b.Sub(b.Scalar(1), b.Greater(b.Scalar(thresholdOr(m.Threshold)), pred)) // pred >= threshold
	return confusionMatrix(b, y, p, 2, false, false)
}

// Result is Keras's IoU.result over the target classes.
func (m BinaryIoU) Result(t []float64) float64 { return iouResult(t, 2, m.targets()) }

// OneHotIoU is keras.metrics.OneHotIoU: IoU with one-hot targets and
// class scores as predictions (the argmax of both taken).
type OneHotIoU struct {
	NumClasses     int
	TargetClassIDs []int
	Label          string
}

// Name returns Label or "one_hot_io_u".
func (m OneHotIoU) Name() string { return labelOr(m.Label, "one_hot_io_u") }

func (m OneHotIoU) iou() IoU {
	return IoU{NumClasses: m.NumClasses, TargetClassIDs: m.TargetClassIDs, DenseYTrue: true, DenseYPred: true, Label: m.Name()}
}

func (m OneHotIoU) check(out backend.Shape) error { return m.iou().check(out) }

// Size is the confusion matrix: NumClasses².
func (m OneHotIoU) Size() int { return m.NumClasses * m.NumClasses }

// Totals implements Accumulator.
func (m OneHotIoU) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	return m.iou().Totals(b, y, pred)
}

// Result is Keras's IoU.result.
func (m OneHotIoU) Result(t []float64) float64 { return m.iou().Result(t) }

// OneHotMeanIoU is keras.metrics.OneHotMeanIoU: MeanIoU with one-hot
// targets and class scores as predictions.
type OneHotMeanIoU struct {
	NumClasses int
	Label      string
}

// Name returns Label or "one_hot_mean_io_u".
func (m OneHotMeanIoU) Name() string { return labelOr(m.Label, "one_hot_mean_io_u") }

func (m OneHotMeanIoU) meanIoU() MeanIoU {
	return MeanIoU{NumClasses: m.NumClasses, DenseYTrue: true, DenseYPred: true, Label: m.Name()}
}

func (m OneHotMeanIoU) check(out backend.Shape) error { return m.meanIoU().check(out) }

// Size is the confusion matrix: NumClasses².
func (m OneHotMeanIoU) Size() int { return m.NumClasses * m.NumClasses }

// Totals implements Accumulator.
func (m OneHotMeanIoU) Totals(b backend.Builder, y, pred backend.Value) backend.Value {
	return m.meanIoU().Totals(b, y, pred)
}

// Result is Keras's MeanIoU.result.
func (m OneHotMeanIoU) Result(t []float64) float64 { return m.meanIoU().Result(t) }
