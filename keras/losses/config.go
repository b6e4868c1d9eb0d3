package losses

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Serialize returns a loss as Keras's compile_config holds it: Keras's
// name when the loss has no settings, else a class object.
func Serialize(l Loss) (any, error) {
	var class string
	var fromLogits bool
	switch v := l.(type) {
	case CategoricalCrossentropy:
		class, fromLogits = "CategoricalCrossentropy", v.FromLogits
	case SparseCategoricalCrossentropy:
		class, fromLogits = "SparseCategoricalCrossentropy", v.FromLogits
	case BinaryCrossentropy:
		class, fromLogits = "BinaryCrossentropy", v.FromLogits
	case MeanSquaredError:
		return "mean_squared_error", nil
	case MeanAbsoluteError:
		return "mean_absolute_error", nil
	case Huber:
		d := v.Delta
		if d == 0 {
			d = 1
		}
		return serialization.NewObject("keras.losses", "Huber", serialization.Config{"name": "huber_loss", "reduction": "sum_over_batch_size", "delta": d}), nil
	case funcLoss:
		return v.name, nil // as Keras saves a custom function: loading needs it registered
	default:
		return nil, fmt.Errorf("loss %s (%T) cannot be saved in Keras's format", l.Name(), l)
	}
	if !fromLogits {
		return l.Name(), nil
	}
	cfg := serialization.Config{"name": l.Name(), "reduction": "sum_over_batch_size", "from_logits": true}
	return serialization.NewObject("keras.losses", class, cfg), nil
}

// Deserialize builds a loss from Keras's compile_config: a name
// ("sparse_categorical_crossentropy", "mse") or a class object.
func Deserialize(v any) (Loss, error) {
	class, cfg, ok := serialization.ClassOrName(v)
	if !ok {
		return nil, fmt.Errorf("cannot read loss %v", v)
	}
	if cfg == nil {
		return Get(class)
	}
	r := serialization.NewReader("loss "+class, cfg)
	r.Ignore("name")
	r.Expect("reduction", "sum_over_batch_size", "kerasgo averages the loss over the batch")
	r.ExpectNull("ignore_class")
	r.Expect("label_smoothing", 0.0, "label smoothing is not implemented yet")
	r.Expect("axis", -1.0, "")
	fromLogits := r.Bool("from_logits", false)
	var l Loss
	switch class {
	case "CategoricalCrossentropy":
		l = CategoricalCrossentropy{FromLogits: fromLogits}
	case "SparseCategoricalCrossentropy":
		l = SparseCategoricalCrossentropy{FromLogits: fromLogits}
	case "BinaryCrossentropy":
		l = BinaryCrossentropy{FromLogits: fromLogits}
	case "MeanSquaredError":
		l = MeanSquaredError{}
	case "MeanAbsoluteError":
		l = MeanAbsoluteError{}
	case "Huber":
		l = Huber{Delta: r.Float("delta", 1)}
	default:
		return nil, fmt.Errorf("kerasgo has no %s loss yet (it has CategoricalCrossentropy, SparseCategoricalCrossentropy, BinaryCrossentropy, MeanSquaredError)", class)
	}
	return l, r.Finish()
}
