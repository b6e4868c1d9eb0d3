package losses

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Serialize returns a loss as Keras's compile_config holds it: Keras's
// name when the loss has no settings, else a class object.
func Serialize(l Loss) (any, error) {
	object := func(class string, cfg serialization.Config) serialization.Object {
		cfg["name"], cfg["reduction"] = l.Name(), "sum_over_batch_size"
		return serialization.NewObject("keras.losses", class, cfg)
	}
	switch v := l.(type) {
	case CategoricalCrossentropy:
		if !v.FromLogits && v.LabelSmoothing == 0 {
			return l.Name(), nil
		}
		return object("CategoricalCrossentropy", serialization.Config{"from_logits": v.FromLogits, "label_smoothing": v.LabelSmoothing, "axis": -1}), nil
	case SparseCategoricalCrossentropy:
		if !v.FromLogits {
			return l.Name(), nil
		}
		return object("SparseCategoricalCrossentropy", serialization.Config{"from_logits": true, "ignore_class": nil}), nil
	case BinaryCrossentropy:
		if !v.FromLogits && v.LabelSmoothing == 0 {
			return l.Name(), nil
		}
		return object("BinaryCrossentropy", serialization.Config{"from_logits": v.FromLogits, "label_smoothing": v.LabelSmoothing, "axis": -1}), nil
	case MeanSquaredError, MeanAbsoluteError, perSample:
		return l.Name(), nil
	case Huber:
		d := v.Delta
		if d == 0 {
			d = 1
		}
		return object("Huber", serialization.Config{"delta": d}), nil
	case CategoricalFocalCrossentropy:
		alpha, gamma := v.params()
		return object("CategoricalFocalCrossentropy", serialization.Config{"alpha": alpha, "gamma": gamma, "from_logits": v.FromLogits, "label_smoothing": v.LabelSmoothing, "axis": -1}), nil
	case BinaryFocalCrossentropy:
		alpha, gamma := CategoricalFocalCrossentropy{Alpha: v.Alpha, Gamma: v.Gamma}.params()
		return object("BinaryFocalCrossentropy", serialization.Config{"apply_class_balancing": v.ApplyClassBalancing, "alpha": alpha, "gamma": gamma,
			"from_logits": v.FromLogits, "label_smoothing": v.LabelSmoothing, "axis": -1}), nil
	case funcLoss:
		return v.name, nil // as Keras saves a custom function: loading needs it registered
	case Reduced:
		inner, err := Serialize(v.Loss)
		if err != nil {
			return nil, err
		}
		obj, isObject := inner.(serialization.Object)
		if !isObject {
			class, ok := classOf[v.Loss.Name()]
			if !ok {
				return nil, fmt.Errorf("loss %s cannot be saved with reduction %q", v.Name(), v.Reduction)
			}
			obj = object(class, serialization.Config{})
		}
		obj.Config["reduction"] = string(v.Reduction)
		return obj, nil
	}
	return nil, fmt.Errorf("loss %s (%T) cannot be saved in Keras's format", l.Name(), l)
}

// classOf maps the names of losses without settings to Keras's classes.
var classOf = map[string]string{
	"categorical_crossentropy": "CategoricalCrossentropy", "sparse_categorical_crossentropy": "SparseCategoricalCrossentropy",
	"binary_crossentropy": "BinaryCrossentropy", "mean_squared_error": "MeanSquaredError", "mean_absolute_error": "MeanAbsoluteError",
	"mean_absolute_percentage_error": "MeanAbsolutePercentageError", "mean_squared_logarithmic_error": "MeanSquaredLogarithmicError",
	"log_cosh": "LogCosh", "kl_divergence": "KLDivergence", "poisson": "Poisson", "hinge": "Hinge", "squared_hinge": "SquaredHinge",
	"categorical_hinge": "CategoricalHinge", "cosine_similarity": "CosineSimilarity",
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
	reduction := Reduction(r.String("reduction", string(SumOverBatchSize)))
	if reduction == "mean" { // Keras 3's other spelling of the default
		reduction = SumOverBatchSize
	}
	r.ExpectNull("ignore_class")
	r.Expect("axis", -1.0, "")
	fromLogits := r.Bool("from_logits", false)
	smoothing := r.Float("label_smoothing", 0)
	if err := checkSmoothing(smoothing); err != nil {
		r.Fail("label_smoothing", "%v", err)
	}
	var l Loss
	switch class {
	case "CategoricalCrossentropy":
		l = CategoricalCrossentropy{FromLogits: fromLogits, LabelSmoothing: smoothing}
	case "SparseCategoricalCrossentropy":
		l = SparseCategoricalCrossentropy{FromLogits: fromLogits}
		if smoothing != 0 {
			r.Fail("label_smoothing", "SparseCategoricalCrossentropy takes no label smoothing (use CategoricalCrossentropy with one-hot targets)")
		}
	case "BinaryCrossentropy":
		l = BinaryCrossentropy{FromLogits: fromLogits, LabelSmoothing: smoothing}
	case "Huber":
		l = Huber{Delta: r.Float("delta", 1)}
	case "CategoricalFocalCrossentropy":
		l = CategoricalFocalCrossentropy{Alpha: r.Float("alpha", 0.25), Gamma: r.Float("gamma", 2), FromLogits: fromLogits, LabelSmoothing: smoothing}
	case "BinaryFocalCrossentropy":
		l = BinaryFocalCrossentropy{ApplyClassBalancing: r.Bool("apply_class_balancing", false), Alpha: r.Float("alpha", 0.25), Gamma: r.Float("gamma", 2),
			FromLogits: fromLogits, LabelSmoothing: smoothing}
	default:
		got, err := Get(class) // the classes without settings
		if err != nil {
			return nil, fmt.Errorf("kerasgo has no %s loss yet (it has %v)", class, Names())
		}
		l = got
	}
	if (fromLogits || smoothing != 0) && !takesLogits(l) {
		r.Fail("from_logits", "loss %s takes no from_logits or label_smoothing", class)
	}
	if reduction != SumOverBatchSize {
		w, ok := l.(Weighted)
		red := Reduced{Loss: w, Reduction: reduction}
		if err := red.check(); !ok || err != nil {
			r.Fail("reduction", "%v", err)
		} else {
			l = red
		}
	}
	return l, r.Finish()
}

func takesLogits(l Loss) bool {
	switch l.(type) {
	case CategoricalCrossentropy, SparseCategoricalCrossentropy, BinaryCrossentropy, CategoricalFocalCrossentropy, BinaryFocalCrossentropy:
		return true
	}
	return false
}
