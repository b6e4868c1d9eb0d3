package metrics

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Metric reports how well predictions match targets. A metric is either a
// Sample metric (one value per sample, averaged over the epoch, like
// accuracy) or an Accumulator (totals kept over the epoch, like
// Precision or AUC).
type Metric interface {
	// Name is how the metric appears in logs and History, e.g. "accuracy".
	Name() string
}

// Sample is a metric with one value per sample, averaged over all the
// samples of an epoch (Keras's MeanMetricWrapper).
type Sample interface {
	Metric
	// Compute returns one value per sample, shape (batch,).
	Compute(b backend.Builder, yTrue, yPred backend.Value) backend.Value
}

// Accumulator is a metric Keras computes from totals kept over all the
// batches of an epoch (its state variables: true positives, a confusion
// matrix, ...): each step computes its batch's totals, the loop adds them
// up, and Result turns the sums into the metric.
type Accumulator interface {
	Metric
	// Size is the number of totals.
	Size() int
	// Totals returns the batch's totals as a vector of Size values.
	Totals(b backend.Builder, yTrue, yPred backend.Value) backend.Value
	// Result computes the metric from the totals summed over batches.
	Result(totals []float64) float64
}

// Check reports a metric that is neither a Sample nor an Accumulator, or
// an Accumulator whose settings cannot work (F1Score without an average
// on several classes, ...).
func Check(m Metric, out backend.Shape) error {
	switch v := m.(type) {
	case interface{ check(out backend.Shape) error }:
		return v.check(out)
	case Sample, Accumulator:
		return nil
	}
	return fmt.Errorf("metric %s (%T) has neither Compute (one value per sample) nor Totals and Result (an accumulator)", m.Name(), m)
}

// Get returns the metric a Keras name denotes. "accuracy" (or "acc")
// becomes binary, sparse categorical or categorical accuracy from the
// shapes of the targets and the output (batch dimension first), by Keras
// 3's rule (compile_utils.is_binary_or_sparse_categorical): binary when
// the output has one value per sample, sparse when the targets have a
// lower rank than the output or one value against several outputs. A name
// given to Register gives that function.
func Get(name string, yTrue, yPred backend.Shape) (Metric, error) {
	m, err := builtin(name, yTrue, yPred)
	if err == nil {
		return m, nil
	}
	if f, ok := registered.Lookup(name); ok {
		return funcMetric{f: f, name: name}, nil
	}
	return nil, err
}

// builtin returns the built-in metric a Keras name denotes.
func builtin(name string, yTrue, yPred backend.Shape) (Metric, error) {
	switch name {
	case "accuracy", "acc":
		tLast, pLast := yTrue[len(yTrue)-1], yPred[len(yPred)-1]
		switch {
		case pLast == 1:
			return BinaryAccuracy{Label: name}, nil
		case len(yTrue) < len(yPred) || tLast == 1:
			return SparseCategoricalAccuracy{Label: name}, nil
		default:
			return CategoricalAccuracy{Label: name}, nil
		}
	case "categorical_accuracy", "CategoricalAccuracy":
		return CategoricalAccuracy{}, nil
	case "sparse_categorical_accuracy", "SparseCategoricalAccuracy":
		return SparseCategoricalAccuracy{}, nil
	case "binary_accuracy", "BinaryAccuracy":
		return BinaryAccuracy{}, nil
	case "mae", "mean_absolute_error", "MeanAbsoluteError":
		return MeanAbsoluteError{Label: name}, nil
	case "mse", "mean_squared_error", "MeanSquaredError":
		return MeanSquaredError{Label: name}, nil
	case "rmse", "root_mean_squared_error", "RootMeanSquaredError":
		return RootMeanSquaredError{}, nil
	case "top_k_categorical_accuracy", "TopKCategoricalAccuracy":
		return TopKCategoricalAccuracy{}, nil
	case "sparse_top_k_categorical_accuracy", "SparseTopKCategoricalAccuracy":
		return SparseTopKCategoricalAccuracy{}, nil
	case "precision", "Precision":
		return Precision{}, nil
	case "recall", "Recall":
		return Recall{}, nil
	case "auc", "AUC":
		return AUC{}, nil
	case "f1_score", "F1Score":
		return F1Score{}, nil
	case "Accuracy":
		return Accuracy{}, nil
	case "bce", "BCE", "binary_crossentropy", "BinaryCrossentropy":
		return BinaryCrossentropy{Label: aliasLabel(name, "binary_crossentropy")}, nil
	case "categorical_crossentropy", "CategoricalCrossentropy":
		return CategoricalCrossentropy{}, nil
	case "sparse_categorical_crossentropy", "SparseCategoricalCrossentropy":
		return SparseCategoricalCrossentropy{}, nil
	case "hinge", "Hinge":
		return Hinge(), nil
	case "squared_hinge", "SquaredHinge":
		return SquaredHinge(), nil
	case "categorical_hinge", "CategoricalHinge":
		return CategoricalHinge(), nil
	case "kl_divergence", "KLDivergence":
		return KLDivergence(), nil
	case "poisson", "Poisson":
		return Poisson(), nil
	case "log_cosh_error", "log_cosh", "logcosh", "LogCoshError":
		return LogCoshError(), nil
	case "mape", "MAPE", "mean_absolute_percentage_error", "MeanAbsolutePercentageError":
		return withLabel(MeanAbsolutePercentageError(), aliasLabel(name, "mean_absolute_percentage_error")), nil
	case "msle", "MSLE", "mean_squared_logarithmic_error", "MeanSquaredLogarithmicError":
		return withLabel(MeanSquaredLogarithmicError(), aliasLabel(name, "mean_squared_logarithmic_error")), nil
	case "cosine_similarity", "CosineSimilarity":
		return CosineSimilarity{}, nil
	case "pearson_correlation", "PearsonCorrelation":
		return PearsonCorrelation{}, nil
	case "concordance_correlation", "ConcordanceCorrelation":
		return ConcordanceCorrelation{}, nil
	case "r2_score", "R2Score":
		return R2Score{}, nil
	case "f_beta_score", "fbeta_score", "FBetaScore":
		return FBetaScore{}, nil
	case "true_positives", "TruePositives":
		return TruePositives(0), nil
	case "false_positives", "FalsePositives":
		return FalsePositives(0), nil
	case "true_negatives", "TrueNegatives":
		return TrueNegatives(0), nil
	case "false_negatives", "FalseNegatives":
		return FalseNegatives(0), nil
	case "binary_io_u", "BinaryIoU":
		return BinaryIoU{}, nil
	case "mean", "Mean":
		return &Mean{}, nil
	case "sum", "Sum":
		return &Sum{}, nil
	}
	if needs, ok := needSettings[name]; ok {
		return nil, fmt.Errorf("metric %q needs settings (%s): give metrics.%s with them, as Keras's %s(...) needs its arguments", name, needs.settings, needs.goName, needs.class)
	}
	return nil, fmt.Errorf("unknown metric %q: use one of %v, a function given to metrics.Register, a metrics.Metric or metrics.FromFunc", name, Names())
}

// Names lists the metric names Get knows, by Keras's snake_case names.
func Names() []string {
	return []string{"accuracy", "auc", "bce", "binary_accuracy", "binary_crossentropy", "binary_io_u", "categorical_accuracy",
		"categorical_crossentropy", "categorical_hinge", "concordance_correlation", "cosine_similarity", "f1_score", "f_beta_score",
		"false_negatives", "false_positives", "hinge", "kl_divergence", "log_cosh_error", "mae", "mape", "mean", "mse", "msle",
		"pearson_correlation", "poisson", "precision", "r2_score", "recall", "rmse", "sparse_categorical_accuracy",
		"sparse_categorical_crossentropy", "sparse_top_k_categorical_accuracy", "squared_hinge", "sum", "top_k_categorical_accuracy",
		"true_negatives", "true_positives"}
}

// needSettings are the metrics Keras cannot make from a name alone: the
// settings each needs and the Go value that takes them.
var needSettings = map[string]struct{ settings, goName, class string }{}

func init() {
	for _, n := range []struct {
		names                   []string
		settings, goName, class string
	}{
		{[]string{"io_u", "IoU"}, "num_classes, target_class_ids", "IoU{NumClasses, TargetClassIDs}", "IoU"},
		{[]string{"mean_io_u", "MeanIoU"}, "num_classes", "MeanIoU{NumClasses}", "MeanIoU"},
		{[]string{"one_hot_io_u", "OneHotIoU"}, "num_classes, target_class_ids", "OneHotIoU{NumClasses, TargetClassIDs}", "OneHotIoU"},
		{[]string{"one_hot_mean_io_u", "OneHotMeanIoU"}, "num_classes", "OneHotMeanIoU{NumClasses}", "OneHotMeanIoU"},
		{[]string{"precision_at_recall", "PrecisionAtRecall"}, "recall", "PrecisionAtRecall(recall, 0)", "PrecisionAtRecall"},
		{[]string{"recall_at_precision", "RecallAtPrecision"}, "precision", "RecallAtPrecision(precision, 0)", "RecallAtPrecision"},
		{[]string{"sensitivity_at_specificity", "SensitivityAtSpecificity"}, "specificity", "SensitivityAtSpecificity(specificity, 0)", "SensitivityAtSpecificity"},
		{[]string{"specificity_at_sensitivity", "SpecificityAtSensitivity"}, "sensitivity", "SpecificityAtSensitivity(sensitivity, 0)", "SpecificityAtSensitivity"},
	} {
		for _, name := range n.names {
			needSettings[name] = struct{ settings, goName, class string }{n.settings, n.goName, n.class}
		}
	}
}

// aliasLabel is the label a metric named by an alias logs under ("bce",
// "mape"), as Keras logs the name given; "" for Keras's own names.
func aliasLabel(name, def string) string {
	if name == def || name[0] >= 'A' && name[0] <= 'Z' {
		return ""
	}
	return name
}

// withLabel is a loss-valued metric logged under label ("" keeps Keras's name).
func withLabel(m Metric, label string) Metric {
	lv := m.(lossValues)
	lv.label = label
	return lv
}

func labelOr(label, def string) string {
	if label != "" {
		return label
	}
	return def
}

// CategoricalAccuracy is the fraction of samples whose predicted class
// (argmax) is the one-hot target's class.
type CategoricalAccuracy struct{ Label string }

// Name returns Label or "categorical_accuracy".
func (m CategoricalAccuracy) Name() string { return labelOr(m.Label, "categorical_accuracy") }

// Compute implements Metric.
func (CategoricalAccuracy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	return b.Equal(b.ArgMax(y), b.ArgMax(pred))
}

// SparseCategoricalAccuracy is the fraction of samples whose predicted class
// (argmax) equals the integer target.
type SparseCategoricalAccuracy struct{ Label string }

// Name returns Label or "sparse_categorical_accuracy".
func (m SparseCategoricalAccuracy) Name() string {
	return labelOr(m.Label, "sparse_categorical_accuracy")
}

// Compute implements Metric.
func (SparseCategoricalAccuracy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	classes := b.ArgMax(pred)
	if !y.Shape().Equal(classes.Shape()) { // targets of shape (batch, 1)
		y = b.Reshape(y, classes.Shape())
	}
	return b.Equal(y, classes)
}

// BinaryAccuracy is the fraction of predictions on the right side of
// Threshold (default 0.5), averaged over the last axis.
type BinaryAccuracy struct {
	Label     string
	Threshold float64
}

// Name returns Label or "binary_accuracy".
func (m BinaryAccuracy) Name() string { return labelOr(m.Label, "binary_accuracy") }

// Compute implements Metric.
func (m BinaryAccuracy) Compute(b backend.Builder, y, pred backend.Value) backend.Value {
	t := m.Threshold
	if t == 0 {
		t = 0.5
	}
	predicted := b.Greater(pred, b.Scalar(t))
	truth := b.Greater(y, b.Scalar(0.5))
	match := b.Equal(predicted, truth)
	return b.Mean(match, len(pred.Shape())-1)
}
