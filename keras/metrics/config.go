package metrics

import (
	"fmt"
	"strings"

	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Serialize returns a metric as Keras's compile_config holds it: its name
// when it has no settings (Keras resolves "accuracy" from the shapes of
// targets and output, as kerasgo does), else a class object.
func Serialize(m Metric) (any, error) {
	object := func(class string, cfg serialization.Config) serialization.Object {
		cfg["name"], cfg["dtype"] = m.Name(), "float32"
		for k, v := range cfg { // written as floats, as Keras checks some are (FBetaScore's beta)
			if f, ok := v.(float64); ok {
				cfg[k] = serialization.Float(f)
			}
		}
		return serialization.NewObject("keras.metrics", class, cfg)
	}
	switch v := m.(type) {
	case Named, CategoricalAccuracy, SparseCategoricalAccuracy, BinaryAccuracy, MeanAbsoluteError, MeanSquaredError, RootMeanSquaredError, funcMetric:
		return m.Name(), nil
	case TopKCategoricalAccuracy:
		return object("TopKCategoricalAccuracy", serialization.Config{"k": v.k()}), nil
	case SparseTopKCategoricalAccuracy:
		return object("SparseTopKCategoricalAccuracy", serialization.Config{"k": kOr5(v.K), "from_sorted_ids": false}), nil
	case Precision:
		return object("Precision", serialization.Config{"thresholds": thresholdOr(v.Threshold), "top_k": nil, "class_id": nil}), nil
	case Recall:
		return object("Recall", serialization.Config{"thresholds": thresholdOr(v.Threshold), "top_k": nil, "class_id": nil}), nil
	case F1Score:
		var avg, th any
		if v.Average != "" {
			avg = v.Average
		}
		if v.Threshold != 0 {
			th = v.Threshold
		}
		return object("F1Score", serialization.Config{"average": avg, "threshold": th}), nil
	case MeanIoU:
		return object("MeanIoU", serialization.Config{"num_classes": v.NumClasses, "ignore_class": nil, "sparse_y_true": !v.DenseYTrue,
			"sparse_y_pred": !v.DenseYPred, "axis": -1}), nil
	case Accuracy:
		return object("Accuracy", serialization.Config{}), nil
	case lossValues:
		return object(v.class, serialization.Config{}), nil
	case BinaryCrossentropy:
		return object("BinaryCrossentropy", serialization.Config{"from_logits": v.FromLogits, "label_smoothing": v.LabelSmoothing}), nil
	case CategoricalCrossentropy:
		return object("CategoricalCrossentropy", serialization.Config{"from_logits": v.FromLogits, "label_smoothing": v.LabelSmoothing, "axis": -1}), nil
	case SparseCategoricalCrossentropy:
		return object("SparseCategoricalCrossentropy", serialization.Config{"from_logits": v.FromLogits, "ignore_class": nil, "axis": -1}), nil
	case CosineSimilarity:
		return object("CosineSimilarity", serialization.Config{}), nil
	case PearsonCorrelation:
		return object("PearsonCorrelation", serialization.Config{"axis": -1}), nil
	case ConcordanceCorrelation:
		return object("ConcordanceCorrelation", serialization.Config{"axis": -1}), nil
	case R2Score:
		return object("R2Score", serialization.Config{"class_aggregation": v.aggregation(), "num_regressors": v.NumRegressors}), nil
	case FBetaScore:
		var avg, th any
		if v.Average != "" {
			avg = v.Average
		}
		if v.Threshold != 0 {
			th = v.Threshold
		}
		return object("FBetaScore", serialization.Config{"average": avg, "beta": v.beta(), "threshold": th}), nil
	case confusionCount:
		return object(confusionClasses[v.cell], serialization.Config{"thresholds": thresholdOr(v.threshold)}), nil
	case atRate:
		kind := atRateKinds[v.kind]
		return object(kind.class, serialization.Config{"class_id": nil, "num_thresholds": v.n(), kind.value: v.value}), nil
	case IoU:
		return object("IoU", serialization.Config{"num_classes": v.NumClasses, "target_class_ids": v.TargetClassIDs, "ignore_class": nil,
			"sparse_y_true": !v.DenseYTrue, "sparse_y_pred": !v.DenseYPred, "axis": -1}), nil
	case BinaryIoU:
		return object("BinaryIoU", serialization.Config{"target_class_ids": v.targets(), "threshold": thresholdOr(v.Threshold)}), nil
	case OneHotIoU:
		return object("OneHotIoU", serialization.Config{"num_classes": v.NumClasses, "target_class_ids": v.TargetClassIDs, "ignore_class": nil,
			"sparse_y_pred": false, "axis": -1}), nil
	case OneHotMeanIoU:
		return object("OneHotMeanIoU", serialization.Config{"num_classes": v.NumClasses, "ignore_class": nil, "sparse_y_pred": false, "axis": -1}), nil
	case AUC:
		curve := v.Curve
		if curve == "" {
			curve = "ROC"
		}
		return object("AUC", serialization.Config{"num_thresholds": v.n(), "curve": curve, "summation_method": "interpolation", "multi_label": false,
			"num_labels": nil, "label_weights": nil, "from_logits": false}), nil
	}
	return nil, fmt.Errorf("metric %s (%T) cannot be saved in Keras's format", m.Name(), m)
}

// Deserialize reads a metric of Keras's compile_config: a name
// ("accuracy"), returned as a Named metric for Compile to resolve, or a
// class object.
func Deserialize(v any) (Metric, error) {
	class, cfg, ok := serialization.ClassOrName(v)
	if !ok {
		return nil, fmt.Errorf("cannot read metric %v", v)
	}
	if cfg == nil {
		if err := Named(class).Check(); err != nil {
			return nil, err
		}
		return Named(class), nil
	}
	r := serialization.NewReader("metric "+class, cfg)
	r.Ignore("dtype")
	label, _ := cfg["name"].(string)
	r.Ignore("name")
	threshold := func() float64 {
		t, ok := r.Value("thresholds")
		if !ok || t == nil {
			return 0.5
		}
		if list, isList := t.([]any); isList && len(list) == 1 {
			t = list[0]
		}
		f, isNum := t.(float64)
		if !isNum {
			r.Fail("thresholds", "kerasgo takes one threshold, got %v", t)
		}
		return f
	}
	var m Metric
	switch class {
	case "CategoricalAccuracy", "SparseCategoricalAccuracy", "MeanAbsoluteError", "MeanSquaredError", "RootMeanSquaredError":
		name := map[string]string{"CategoricalAccuracy": "categorical_accuracy", "SparseCategoricalAccuracy": "sparse_categorical_accuracy",
			"MeanAbsoluteError": "mean_absolute_error", "MeanSquaredError": "mean_squared_error", "RootMeanSquaredError": "root_mean_squared_error"}[class]
		if err := r.Finish(); err != nil {
			return nil, err
		}
		return Named(name), nil
	case "BinaryAccuracy":
		m = BinaryAccuracy{Label: label, Threshold: r.Float("threshold", 0.5)}
	case "TopKCategoricalAccuracy":
		m = TopKCategoricalAccuracy{K: r.Int("k", 5), Label: label}
	case "SparseTopKCategoricalAccuracy":
		r.Expect("from_sorted_ids", false, "")
		m = SparseTopKCategoricalAccuracy{K: r.Int("k", 5), Label: label}
	case "Precision", "Recall":
		r.ExpectNull("top_k")
		r.ExpectNull("class_id")
		if class == "Precision" {
			m = Precision{Threshold: threshold(), Label: label}
		} else {
			m = Recall{Threshold: threshold(), Label: label}
		}
	case "F1Score":
		f := F1Score{Label: label, Threshold: r.Float("threshold", 0)}
		if a, ok := r.Value("average"); ok && a != nil {
			f.Average = r.String("average", "")
		}
		m = f
	case "MeanIoU":
		r.ExpectNull("ignore_class")
		r.Expect("axis", -1.0, "")
		m = MeanIoU{NumClasses: r.Int("num_classes", 0), DenseYTrue: !r.Bool("sparse_y_true", true), DenseYPred: !r.Bool("sparse_y_pred", true), Label: label}
	case "AUC":
		r.Expect("summation_method", "interpolation", "")
		r.Expect("multi_label", false, "")
		r.Expect("from_logits", false, "")
		r.ExpectNull("num_labels")
		r.ExpectNull("label_weights")
		r.ExpectNull("thresholds")
		m = AUC{NumThresholds: r.Int("num_thresholds", 200), Curve: r.String("curve", "ROC"), Label: label}
	case "Accuracy":
		m = Accuracy{Label: label}
	case "Hinge", "SquaredHinge", "CategoricalHinge", "KLDivergence", "Poisson", "LogCoshError", "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError":
		got, _ := Get(class, placeholderShape, placeholderShape)
		m = withLabel(got, labelIfNot(label, got.Name()))
	case "BinaryCrossentropy":
		m = BinaryCrossentropy{FromLogits: r.Bool("from_logits", false), LabelSmoothing: r.Float("label_smoothing", 0), Label: label}
	case "CategoricalCrossentropy":
		r.Expect("axis", -1.0, "")
		m = CategoricalCrossentropy{FromLogits: r.Bool("from_logits", false), LabelSmoothing: r.Float("label_smoothing", 0), Label: label}
	case "SparseCategoricalCrossentropy":
		r.Expect("axis", -1.0, "")
		r.ExpectNull("ignore_class")
		m = SparseCategoricalCrossentropy{FromLogits: r.Bool("from_logits", false), Label: label}
	case "CosineSimilarity":
		r.Expect("axis", -1.0, "")
		m = CosineSimilarity{Label: label}
	case "PearsonCorrelation":
		r.Expect("axis", -1.0, "")
		m = PearsonCorrelation{Label: label}
	case "ConcordanceCorrelation":
		r.Expect("axis", -1.0, "")
		m = ConcordanceCorrelation{Label: label}
	case "R2Score":
		agg := "uniform_average"
		if a, ok := r.Value("class_aggregation"); ok && a == nil {
			r.Fail("class_aggregation", "None gives one score per output and kerasgo logs one number per metric: use \"uniform_average\" or \"variance_weighted_average\"")
		} else {
			agg = r.String("class_aggregation", agg)
		}
		m = R2Score{ClassAggregation: agg, NumRegressors: r.Int("num_regressors", 0), Label: label}
	case "FBetaScore":
		f := FBetaScore{Label: label, Beta: r.Float("beta", 1), Threshold: r.Float("threshold", 0)}
		if a, ok := r.Value("average"); ok && a != nil {
			f.Average = r.String("average", "")
		}
		m = f
	case "TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives":
		for cell, c := range confusionClasses {
			if c == class {
				m = confusionCount{cell: cell, name: [4]string{"true_positives", "false_positives", "true_negatives", "false_negatives"}[cell],
					threshold: threshold(), label: label}
			}
		}
	case "PrecisionAtRecall", "RecallAtPrecision", "SensitivityAtSpecificity", "SpecificityAtSensitivity":
		r.ExpectNull("class_id")
		for kind, k := range atRateKinds {
			if k.class == class {
				r.NotNull(k.value)
				m = atRate{kind: kind, value: r.Float(k.value, 0), numThresholds: r.Int("num_thresholds", 200), label: labelIfNot(label, k.name)}
			}
		}
	case "IoU", "OneHotIoU":
		r.ExpectNull("ignore_class")
		r.Expect("axis", -1.0, "")
		ids := r.Ints("target_class_ids")
		if class == "IoU" {
			m = IoU{NumClasses: r.Int("num_classes", 0), TargetClassIDs: ids, DenseYTrue: !r.Bool("sparse_y_true", true), DenseYPred: !r.Bool("sparse_y_pred", true), Label: label}
		} else {
			r.Expect("sparse_y_pred", false, "")
			m = OneHotIoU{NumClasses: r.Int("num_classes", 0), TargetClassIDs: ids, Label: label}
		}
	case "BinaryIoU":
		m = BinaryIoU{TargetClassIDs: r.Ints("target_class_ids"), Threshold: r.Float("threshold", 0.5), Label: label}
	case "OneHotMeanIoU":
		r.ExpectNull("ignore_class")
		r.Expect("axis", -1.0, "")
		r.Expect("sparse_y_pred", false, "")
		m = OneHotMeanIoU{NumClasses: r.Int("num_classes", 0), Label: label}
	case "Mean", "Sum":
		return nil, trackerError(labelOr(label, strings.ToLower(class)), class)
	default:
		return nil, fmt.Errorf("kerasgo has no %s metric yet (it has %v)", class, Names())
	}
	return m, r.Finish()
}

// labelIfNot is label, or "" when it is Keras's default name def (so that
// the metric keeps its own name).
func labelIfNot(label, def string) string {
	if label == def {
		return ""
	}
	return label
}
