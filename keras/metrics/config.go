package metrics

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"

	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Serialize returns a metric as Keras's compile_config holds it: its name
// (Keras resolves "accuracy" from the shapes of targets and output, as
// kerasgo does).
func Serialize(m Metric) (any, error) {
	switch m.(type) {
	case CategoricalAccuracy, SparseCategoricalAccuracy, BinaryAccuracy, MeanAbsoluteError, MeanSquaredError, funcMetric:
		return m.Name(), nil
	}
	return nil, fmt.Errorf("metric %s (%T) cannot be saved in Keras's format", m.Name(), m)
}

// Deserialize returns the name of a metric in Keras's compile_config, for
// Get: a name ("accuracy") or a class object.
func Deserialize(v any) (string, error) {
	class, cfg, ok := serialization.ClassOrName(v)
	if !ok {
		return "", fmt.Errorf("cannot read metric %v", v)
	}
	if cfg == nil {
		if _, err := Get(class, backend.Shape{-1, 2}, backend.Shape{-1, 2}); err != nil {
			return "", err
		}
		return class, nil
	}
	names := map[string]string{"CategoricalAccuracy": "categorical_accuracy", "SparseCategoricalAccuracy": "sparse_categorical_accuracy", "BinaryAccuracy": "binary_accuracy",
		"MeanAbsoluteError": "mean_absolute_error", "MeanSquaredError": "mean_squared_error"}
	name, known := names[class]
	if !known {
		return "", fmt.Errorf("kerasgo has no %s metric yet (it has accuracy, categorical_accuracy, sparse_categorical_accuracy, binary_accuracy, mae, mse)", class)
	}
	r := serialization.NewReader("metric "+class, cfg)
	r.Ignore("name", "dtype")
	r.Expect("threshold", 0.5, "")
	return name, r.Finish()
}
