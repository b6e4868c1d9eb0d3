package metrics

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Serialize returns a metric as Keras's compile_config holds it: its name
// when it has no settings (Keras resolves "accuracy" from the shapes of
// targets and output, as kerasgo does), else a class object.
func Serialize(m Metric) (any, error) {
	object := func(class string, cfg serialization.Config) serialization.Object {
		cfg["name"], cfg["dtype"] = m.Name(), "float32"
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
	default:
		return nil, fmt.Errorf("kerasgo has no %s metric yet (it has %v)", class, Names())
	}
	return m, r.Finish()
}
