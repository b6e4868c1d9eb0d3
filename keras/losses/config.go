package losses

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Serialize returns a loss as Keras's compile_config holds it: Keras's
// name when the loss has no settings, else a class object.
func Serialize(l Loss) (any, error) {
	object := func(class string, cfg serialization.Config) serialization.Object {
		cfg["name"], cfg["reduction"] = l.Name(), "sum_over_batch_size"
		for k, v := range cfg { // written as floats, as Keras checks some are (FBetaScore's beta)
			if f, ok := v.(float64); ok {
				cfg[k] = serialization.Float(f)
			}
		}
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
	case MeanSquaredError, MeanAbsoluteError, perSample, CTC:
		return l.Name(), nil
	case Dice:
		if v.Axis == nil {
			return l.Name(), nil
		}
		return object("Dice", serialization.Config{"axis": v.Axis}), nil
	case Tversky:
		alpha, beta := v.weights()
		if alpha == 0.5 && beta == 0.5 && v.Axis == nil {
			return l.Name(), nil
		}
		return object("Tversky", serialization.Config{"alpha": alpha, "beta": beta, "axis": axisConfig(v.Axis)}), nil
	case Circle:
		gamma, margin := v.settings()
		if gamma == 80 && margin == 0.4 && !v.KeepDiagonal {
			return l.Name(), nil
		}
		return object("Circle", serialization.Config{"gamma": gamma, "margin": margin, "remove_diagonal": !v.KeepDiagonal}), nil
	case CategoricalGeneralizedCrossEntropy:
		// Always the class: Keras's function takes no default q, so
		// Keras cannot read the bare name.
		return object("CategoricalGeneralizedCrossEntropy", serialization.Config{"q": v.q()}), nil
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
	"dice": "Dice", "tversky": "Tversky", "circle": "Circle", "ctc": "CTC",
	"categorical_generalized_cross_entropy": "CategoricalGeneralizedCrossEntropy",
}

// axisConfig is a loss's Axis as Keras's config holds it: null for nil.
func axisConfig(axis []int) any {
	if axis == nil {
		return nil
	}
	return axis
}

// readAxis reads a loss's axis: null (every axis), one integer or a list
// of them, negative ones counting from the end.
func readAxis(r *serialization.Reader) []int {
	v, ok := r.Value("axis")
	if !ok || v == nil {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		list = []any{v}
	}
	if len(list) == 0 {
		r.Fail("axis", "an empty list of axes is not supported by kerasgo: use null for every axis")
		return nil
	}
	out := make([]int, len(list))
	for i, e := range list {
		f, isNum := e.(float64)
		if !isNum || f != math.Trunc(f) {
			r.Fail("axis", "want null, an integer or a list of integers, got %v", v)
			return nil
		}
		out[i] = int(f)
	}
	return out
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
	if class != "Dice" && class != "Tversky" {
		r.Expect("axis", -1.0, "")
	}
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
	case "Dice":
		l = Dice{Axis: readAxis(r)}
	case "Tversky":
		l = Tversky{Alpha: r.Float("alpha", 0.5), Beta: r.Float("beta", 0.5), Axis: readAxis(r)}
		if t := l.(Tversky); t.Alpha == 0 && t.Beta == 0 {
			r.Fail("alpha", "alpha and beta both 0 leave the loss 1 - tp/(tp + ε), a constant; kerasgo reads both 0 as Keras's defaults, so it refuses them rather than change them")
		}
	case "Circle":
		l = Circle{Gamma: r.Float("gamma", 80), Margin: r.Float("margin", 0.4), KeepDiagonal: !r.Bool("remove_diagonal", true)}
		if c := l.(Circle); c.Gamma <= 0 || c.Margin == 0 {
			r.Fail("gamma", "Circle's gamma must be > 0 and its margin not exactly 0 in kerasgo (0 stands for Keras's default), got gamma=%v margin=%v", c.Gamma, c.Margin)
		}
	case "CategoricalGeneralizedCrossEntropy":
		q := r.Float("q", 0.5)
		if q <= 0 || q >= 1 {
			r.Fail("q", "q must be in the interval (0, 1), got %v", q)
		}
		l = CategoricalGeneralizedCrossEntropy{Q: q}
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
