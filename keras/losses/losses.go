package losses

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Epsilon is Keras's fuzz factor: probabilities are clipped to
// [Epsilon, 1-Epsilon] before taking logs.
const Epsilon = 1e-7

// Loss computes a scalar training objective.
type Loss interface {
	// Name is the Keras name, e.g. "categorical_crossentropy".
	Name() string
	// Compute returns the mean loss over the batch.
	Compute(b backend.Builder, yTrue, yPred backend.Value) backend.Value
	// CheckTargets validates the targets on the host before training: their
	// shape against the model's output shape (batch dimension -1) and their
	// values. Errors say what is wrong and how to fix it.
	CheckTargets(y []float32, yShape, predShape backend.Shape) error
}

// Weighted is a loss that gives its values before the batch average (one
// per sample, or per sample and position for sequences: the output's
// shape without its last axis), as Keras's loss functions do. Sample and
// class weights need it: the weighted loss is sum(values * weights) /
// count, Keras's "sum_over_batch_size". Every built-in loss is Weighted.
type Weighted interface {
	Loss
	Unreduced(b backend.Builder, yTrue, yPred backend.Value) backend.Value
}

// Get returns the loss a Keras name denotes: its function name
// ("sparse_categorical_crossentropy", "mse", "mae", "huber") or its class
// name ("SparseCategoricalCrossentropy", "MeanSquaredError", "Huber"),
// or a function given to Register under that name.
func Get(name string) (Loss, error) {
	l, err := builtin(name)
	if err == nil {
		return l, nil
	}
	if f, ok := registered.Lookup(name); ok {
		return funcLoss{f: f, name: name}, nil
	}
	return nil, err
}

// builtin returns the built-in loss a Keras name denotes.
func builtin(name string) (Loss, error) {
	switch name {
	case "categorical_crossentropy", "CategoricalCrossentropy":
		return CategoricalCrossentropy{}, nil
	case "sparse_categorical_crossentropy", "SparseCategoricalCrossentropy":
		return SparseCategoricalCrossentropy{}, nil
	case "binary_crossentropy", "BinaryCrossentropy":
		return BinaryCrossentropy{}, nil
	case "mse", "mean_squared_error", "MeanSquaredError":
		return MeanSquaredError{}, nil
	case "mae", "mean_absolute_error", "MeanAbsoluteError":
		return MeanAbsoluteError{}, nil
	case "huber", "huber_loss", "Huber":
		return Huber{}, nil
	case "mape", "mean_absolute_percentage_error", "MeanAbsolutePercentageError":
		return MeanAbsolutePercentageError(), nil
	case "msle", "mean_squared_logarithmic_error", "MeanSquaredLogarithmicError":
		return MeanSquaredLogarithmicError(), nil
	case "log_cosh", "logcosh", "LogCosh":
		return LogCosh(), nil
	case "kl_divergence", "kld", "KLDivergence":
		return KLDivergence(), nil
	case "poisson", "Poisson":
		return Poisson(), nil
	case "hinge", "Hinge":
		return Hinge(), nil
	case "squared_hinge", "SquaredHinge":
		return SquaredHinge(), nil
	case "categorical_hinge", "CategoricalHinge":
		return CategoricalHinge(), nil
	case "cosine_similarity", "CosineSimilarity":
		return CosineSimilarity(), nil
	case "categorical_focal_crossentropy", "CategoricalFocalCrossentropy":
		return CategoricalFocalCrossentropy{}, nil
	case "binary_focal_crossentropy", "BinaryFocalCrossentropy":
		return BinaryFocalCrossentropy{}, nil
	case "dice", "Dice":
		return Dice{}, nil
	case "tversky", "Tversky":
		return Tversky{}, nil
	case "circle", "Circle":
		return Circle{}, nil
	case "ctc", "CTC":
		return CTC{}, nil
	case "categorical_generalized_cross_entropy", "CategoricalGeneralizedCrossEntropy":
		return CategoricalGeneralizedCrossEntropy{}, nil
	}
	return nil, fmt.Errorf("unknown loss %q: use one of %v, a function given to losses.Register, a losses.Loss or losses.FromFunc", name, Names())
}

// Names lists the losses Get knows, by Keras's function names.
func Names() []string {
	return []string{"binary_crossentropy", "binary_focal_crossentropy", "categorical_crossentropy", "categorical_focal_crossentropy",
		"categorical_generalized_cross_entropy", "categorical_hinge", "circle", "cosine_similarity", "ctc", "dice", "hinge", "huber",
		"kl_divergence", "log_cosh", "mae", "mape", "mse", "msle", "poisson", "sparse_categorical_crossentropy", "squared_hinge", "tversky"}
}

func clip(b backend.Builder, p backend.Value) backend.Value {
	return b.Minimum(b.Maximum(p, b.Scalar(Epsilon)), b.Scalar(1-Epsilon))
}

// crossentropy is -sum(y * log p) over the last axis, from probabilities
// (normalised and clipped as Keras does) or from logits.
func crossentropy(b backend.Builder, y, pred backend.Value, fromLogits bool) backend.Value {
	var logp backend.Value
	if fromLogits {
		logp = b.LogSoftmax(pred)
	} else {
		last := len(pred.Shape()) - 1
		sum := b.Sum(pred, last)
		p := b.Div(pred, b.Reshape(sum, append(sum.Shape().Clone(), 1)))
		logp = b.Log(clip(b, p))
	}
	return b.Neg(b.Sum(b.Mul(y, logp), len(pred.Shape())-1))
}

func sameShape(yShape, predShape backend.Shape) error {
	if len(yShape) != len(predShape) {
		return fmt.Errorf("targets of shape %v do not match the model's output %v", yShape, predShape)
	}
	for i := 1; i < len(yShape); i++ {
		if predShape[i] >= 0 && yShape[i] != predShape[i] {
			return fmt.Errorf("targets of shape %v do not match the model's output %v", yShape, predShape)
		}
	}
	return nil
}

// CategoricalCrossentropy compares one-hot targets with predicted class
// probabilities (or logits, with FromLogits). LabelSmoothing moves targets
// towards uniform: y*(1 - s) + s/classes, as Keras's label_smoothing.
type CategoricalCrossentropy struct {
	FromLogits     bool
	LabelSmoothing float64
}

// Name returns "categorical_crossentropy".
func (CategoricalCrossentropy) Name() string { return "categorical_crossentropy" }

// Compute implements Loss.
func (l CategoricalCrossentropy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return b.Mean(l.Unreduced(b, y, pred))
}

// Unreduced implements Weighted.
func (l CategoricalCrossentropy) Unreduced(b backend.Builder, y, pred backend.Value) backend.Value {
	return crossentropy(b, smoothCategorical(b, y, l.LabelSmoothing), pred, l.FromLogits)
}

// CheckTargets wants one-hot targets shaped like the output.
func (l CategoricalCrossentropy) CheckTargets(y []float32, ys, ps backend.Shape) error {
	if err := sameShape(ys, ps); err != nil {
		if len(ys) == 1 || (len(ys) == 2 && ys[1] == 1) {
			return fmt.Errorf("%w: these look like class indices; use sparse_categorical_crossentropy or one-hot encode them", err)
		}
		return err
	}
	return nil
}

// SparseCategoricalCrossentropy compares integer class indices with
// predicted class probabilities (or logits, with FromLogits).
type SparseCategoricalCrossentropy struct{ FromLogits bool }

// Name returns "sparse_categorical_crossentropy".
func (SparseCategoricalCrossentropy) Name() string { return "sparse_categorical_crossentropy" }

// Compute implements Loss.
func (l SparseCategoricalCrossentropy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return b.Mean(l.Unreduced(b, y, pred))
}

// Unreduced implements Weighted. It is Keras's definition, -sum(onehot(y)
// * log p) over the last axis, with the one term that is not zero taken
// directly (Builder.TakeAlongLastAxis): the same values, without a
// one-hot tensor, a product and a log as large as the predictions, and
// their gradients.
func (l SparseCategoricalCrossentropy) Unreduced(b backend.Builder, y, pred backend.Value) backend.Value {
	s := y.Shape()
	if len(s) == len(pred.Shape()) && s[len(s)-1] == 1 {
		y = b.Reshape(y, s[:len(s)-1])
	}
	if l.FromLogits {
		return b.Neg(b.TakeAlongLastAxis(b.LogSoftmax(pred), y))
	}
	// p normalised over the last axis and clipped, as crossentropy does,
	// for the target class only.
	sum := b.Sum(pred, len(pred.Shape())-1)
	return b.Neg(b.Log(clip(b, b.Div(b.TakeAlongLastAxis(pred, y), sum))))
}

// SparseToOneHot one-hot encodes class indices y of shape (batch,) or
// (batch, 1) to match pred's last axis.
func SparseToOneHot(b backend.Builder, y, pred backend.Value) backend.Value {
	s := y.Shape()
	if len(s) == len(pred.Shape()) && s[len(s)-1] == 1 {
		y = b.Reshape(y, s[:len(s)-1])
	}
	ps := pred.Shape()
	return b.OneHot(y, ps[len(ps)-1])
}

// CheckTargets wants one integer class index in [0, classes) per sample.
func (l SparseCategoricalCrossentropy) CheckTargets(y []float32, ys, ps backend.Shape) error {
	return CheckClassIndices(y, ys, ps)
}

// CheckClassIndices checks that y holds one integer class index in
// [0, classes) per sample, classes being the last axis of the output.
func CheckClassIndices(y []float32, ys, ps backend.Shape) error {
	okShape := len(ys) == len(ps)-1 || (len(ys) == len(ps) && ys[len(ys)-1] == 1)
	if !okShape {
		return fmt.Errorf("targets of shape %v are not class indices for the model's output %v: give one index per sample, shape (samples,), or use categorical_crossentropy for one-hot targets", ys, ps)
	}
	classes := ps[len(ps)-1]
	for i, v := range y {
		if v < 0 || int(v) >= classes || float32(int(v)) != v || math.IsNaN(float64(v)) {
			return fmt.Errorf("label %v at index %d is out of range: the model's output has %d classes, so labels must be integers in [0, %d)", v, i, classes, classes)
		}
	}
	return nil
}

// BinaryCrossentropy compares 0/1 targets with predicted probabilities (or
// logits, with FromLogits), averaged over the last axis. LabelSmoothing
// moves targets towards 1/2: y*(1 - s) + s/2, as Keras's label_smoothing.
type BinaryCrossentropy struct {
	FromLogits     bool
	LabelSmoothing float64
}

// Name returns "binary_crossentropy".
func (BinaryCrossentropy) Name() string { return "binary_crossentropy" }

// Compute implements Loss.
func (l BinaryCrossentropy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return b.Mean(l.Unreduced(b, y, pred))
}

// Unreduced implements Weighted.
func (l BinaryCrossentropy) Unreduced(b backend.Builder, y, pred backend.Value) backend.Value {
	last := len(pred.Shape()) - 1
	return b.Mean(binaryCrossentropy(b, smoothBinary(b, y, l.LabelSmoothing), pred, l.FromLogits), last)
}

// binaryCrossentropy is the elementwise binary crossentropy.
func binaryCrossentropy(b backend.Builder, y, pred backend.Value, fromLogits bool) backend.Value {
	if fromLogits {
		// max(x, 0) - x*y + log(1 + exp(-|x|)), stable for any x.
		abs := b.Add(b.Relu(pred), b.Relu(b.Neg(pred)))
		return b.Add(b.Sub(b.Relu(pred), b.Mul(pred, y)), b.Log(b.Add(b.Scalar(1), b.Exp(b.Neg(abs)))))
	}
	p := clip(b, pred)
	one := b.Scalar(1)
	return b.Neg(b.Add(b.Mul(y, b.Log(p)), b.Mul(b.Sub(one, y), b.Log(b.Sub(one, p)))))
}

// CheckTargets wants targets shaped like the output with values in [0, 1].
func (l BinaryCrossentropy) CheckTargets(y []float32, ys, ps backend.Shape) error {
	if err := sameShape(ys, ps); err != nil {
		return err
	}
	for i, v := range y {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("target %v at index %d is out of range: binary_crossentropy needs targets in [0, 1]", v, i)
		}
	}
	return nil
}

// MeanSquaredError is the mean of (y - pred)² over the last axis.
type MeanSquaredError struct{}

// Name returns "mean_squared_error".
func (MeanSquaredError) Name() string { return "mean_squared_error" }

// Compute implements Loss.
func (l MeanSquaredError) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return b.Mean(l.Unreduced(b, y, pred))
}

// Unreduced implements Weighted.
func (MeanSquaredError) Unreduced(b backend.Builder, y, pred backend.Value) backend.Value {
	return b.Mean(b.Square(b.Sub(y, pred)), len(pred.Shape())-1)
}

// CheckTargets wants targets shaped like the output.
func (MeanSquaredError) CheckTargets(_ []float32, ys, ps backend.Shape) error {
	return sameShape(ys, ps)
}
