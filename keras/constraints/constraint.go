package constraints

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Constraint projects a weight's value: Keras's keras.constraints.Constraint.
type Constraint interface {
	// Apply returns the constrained value of w, built with b.
	Apply(b backend.Builder, w backend.Value) backend.Value
	// ClassName is Keras's class name ("MaxNorm").
	ClassName() string
	// Config returns the settings Keras's get_config returns.
	Config() serialization.Config
	// CheckShape reports a setting Keras refuses or one that does not fit
	// a weight of shape s (an axis out of range).
	CheckShape(s backend.Shape) error
}

// epsilon is Keras's backend.epsilon(), added to norms before dividing.
const epsilon = 1e-7

// axes returns the axes of a rank-r weight that axis names (Keras's
// default, axis 0, for none), made non-negative.
func axes(class string, axis []int, r int) ([]int, error) {
	if len(axis) == 0 {
		axis = []int{0}
	}
	out := make([]int, len(axis))
	seen := map[int]bool{}
	for i, a := range axis {
		if a < 0 {
			a += r
		}
		if a < 0 || a >= r || seen[a] {
			return nil, fmt.Errorf("constraint %s: axis %v does not fit a weight of rank %d (give distinct axes from %d to %d)", class, axis, r, -r, r-1)
		}
		seen[a], out[i] = true, a
	}
	return out, nil
}

// norms returns sqrt(sum(w², axes)) with the axes kept (length 1), so
// that it broadcasts against w.
func norms(b backend.Builder, w backend.Value, axis []int) backend.Value {
	s := w.Shape()
	ax, _ := axes("", axis, len(s)) // checked by CheckShape
	kept := s.Clone()
	for _, a := range ax {
		kept[a] = 1
	}
	return b.Reshape(b.Sqrt(b.Sum(b.Square(w), ax...)), kept)
}

// rescale returns w * desired / (epsilon + n): every Norm constraint's
// last step.
func rescale(b backend.Builder, w, desired, n backend.Value) backend.Value {
	return b.Mul(w, b.Div(desired, b.Add(b.Scalar(epsilon), n)))
}

// clip returns x limited to [lo, hi].
func clip(b backend.Builder, x backend.Value, lo, hi float64) backend.Value {
	return b.Minimum(b.Maximum(x, b.Scalar(lo)), b.Scalar(hi))
}

// axisConfig is how Keras writes an axis: an int, or a list for several.
func axisConfig(axis []int) any {
	switch len(axis) {
	case 0:
		return 0
	case 1:
		return axis[0]
	}
	return append([]int(nil), axis...)
}

// checkValue refuses a non-finite setting.
func checkValue(class, name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("constraint %s: %s = %v: want a finite number", class, name, v)
	}
	return nil
}

// catalog holds the constraints Get knows, by Keras's identifiers: the
// class name and its snake_case form, each with Keras's defaults.
var catalog = serialization.NewCatalog("constraint", map[string]func() Constraint{
	"MaxNorm":    func() Constraint { return MaxNorm{} },
	"MinMaxNorm": func() Constraint { return MinMaxNorm{} },
	"NonNeg":     func() Constraint { return NonNeg{} },
	"UnitNorm":   func() Constraint { return UnitNorm{} },
})

// Names returns the identifiers Get knows, sorted.
func Names() []string { return catalog.Names() }

// Get returns the constraint a Keras identifier names ("max_norm",
// "NonNeg", ...), with Keras's defaults.
func Get(name string) (Constraint, error) { return catalog.Get(name) }

// Serialize returns the Keras form of c as config.json holds it,
// {"module": "keras.constraints", "class_name": "MaxNorm", "config": {"max_value": 2, "axis": 0}, ...},
// or nil for a nil c.
func Serialize(c Constraint) (any, error) {
	if c == nil {
		return nil, nil
	}
	if !catalog.Has(c.ClassName()) {
		return nil, fmt.Errorf("constraint %s cannot be saved in Keras's format: kerasgo saves %v", c.ClassName(), catalog.Classes())
	}
	return serialization.NewObject("keras.constraints", c.ClassName(), c.Config()), nil
}

// Deserialize reads a constraint from its Keras form: nil (none), an
// identifier (see Get) or a class object with its settings.
func Deserialize(v any) (Constraint, error) {
	c, class, r, err := catalog.Open(v)
	if err != nil || r == nil {
		return c, err
	}
	switch class {
	case "MaxNorm":
		c = MaxNorm{MaxValue: r.Float("max_value", 2), Axis: readAxis(r)}
	case "MinMaxNorm":
		c = MinMaxNorm{MinValue: r.Float("min_value", 0), MaxValue: r.Float("max_value", 1), Rate: r.Float("rate", 1), Axis: readAxis(r)}
	case "NonNeg":
		c = NonNeg{}
	case "UnitNorm":
		c = UnitNorm{Axis: readAxis(r)}
	default:
		return nil, catalog.Unknown(class)
	}
	if err := r.Finish(); err != nil {
		return nil, err
	}
	return c, nil
}

// readAxis reads Keras's axis: an int or a list of ints.
func readAxis(r *serialization.Reader) []int {
	v, ok := r.Value("axis")
	if !ok {
		return nil
	}
	if f, isNum := v.(float64); isNum {
		if f != math.Trunc(f) {
			r.Fail("axis", "want an integer or a list of integers, got %v", v)
			return nil
		}
		return []int{int(f)}
	}
	return r.Ints("axis")
}
