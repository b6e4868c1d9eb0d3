package regularizers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Regularizer computes a penalty from a tensor: Keras's
// keras.regularizers.Regularizer.
type Regularizer interface {
	// Penalty returns the scalar penalty of x, built with b.
	Penalty(b backend.Builder, x backend.Value) backend.Value
	// ClassName is Keras's class name ("L2").
	ClassName() string
	// Config returns the settings Keras's get_config returns.
	Config() serialization.Config
	// Check reports a setting Keras refuses (a negative or non-finite
	// factor, an unknown mode).
	Check() error
}

// defaultFactor is Keras's factor of L1(), L2() and
// OrthogonalRegularizer().
const defaultFactor = 0.01

// orDefault returns f, or Keras's default factor for a zero f.
func orDefault(f float64) float64 {
	if f == 0 {
		return defaultFactor
	}
	return f
}

// checkFactor is Keras's validate_float_arg: a finite, non-negative number.
func checkFactor(class, name string, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return fmt.Errorf("regularizer %s: %s = %v: want a finite number >= 0", class, name, f)
	}
	return nil
}

// abs is |x| with the gradient sign(x), 0 at 0 (as Keras's ops.absolute):
// x times its sign, which is a constant to the gradient.
func abs(b backend.Builder, x backend.Value) backend.Value {
	zero := b.Scalar(0)
	return b.Mul(x, b.Sub(b.Greater(x, zero), b.Greater(zero, x)))
}

// CheckShape reports whether r can take a tensor of shape s (with the
// batch dimension -1 for an activity): OrthogonalRegularizer takes
// matrices only. Layers call it when they attach a regularizer.
func CheckShape(r Regularizer, s backend.Shape) error {
	if r == nil {
		return nil
	}
	if err := r.Check(); err != nil {
		return err
	}
	if c, ok := r.(interface{ CheckShape(backend.Shape) error }); ok {
		return c.CheckShape(s)
	}
	return nil
}

// catalog holds the regularizers Get knows, by Keras's identifiers: the
// class name and its snake_case form, each with Keras's defaults.
var catalog = serialization.NewCatalog("regularizer", map[string]func() Regularizer{
	"L1":                    func() Regularizer { return L1{} },
	"L2":                    func() Regularizer { return L2{} },
	"L1L2":                  func() Regularizer { return L1L2{} },
	"OrthogonalRegularizer": func() Regularizer { return OrthogonalRegularizer{} },
})

// Names returns the identifiers Get knows, sorted.
func Names() []string { return catalog.Names() }

// Get returns the regularizer a Keras identifier names ("l2", "L1",
// "orthogonal_regularizer"), with Keras's defaults: Keras's
// keras.regularizers.get of a string.
func Get(name string) (Regularizer, error) { return catalog.Get(name) }

// Serialize returns the Keras form of r as config.json holds it,
// {"module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.01}, ...},
// or nil for a nil r (Python's None).
func Serialize(r Regularizer) (any, error) {
	if r == nil {
		return nil, nil
	}
	if !catalog.Has(r.ClassName()) {
		return nil, fmt.Errorf("regularizer %s cannot be saved in Keras's format: kerasgo saves %v", r.ClassName(), catalog.Classes())
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	cfg := r.Config()
	for k, v := range cfg { // Keras writes its factors as floats
		if f, isFloat := v.(float64); isFloat {
			cfg[k] = serialization.Float(f)
		}
	}
	return serialization.NewObject("keras.regularizers", r.ClassName(), cfg), nil
}

// Deserialize reads a regularizer from its Keras form: nil (no
// regularizer), an identifier (see Get) or a class object with its
// settings.
func Deserialize(v any) (Regularizer, error) {
	reg, class, r, err := catalog.Open(v)
	if err != nil || r == nil {
		return reg, err
	}
	switch class {
	case "L1":
		reg = L1{L1: r.Float("l1", defaultFactor)}
	case "L2":
		reg = L2{L2: r.Float("l2", defaultFactor)}
	case "L1L2":
		reg = L1L2{L1: r.Float("l1", 0), L2: r.Float("l2", 0)}
	case "OrthogonalRegularizer":
		reg = OrthogonalRegularizer{Factor: r.Float("factor", defaultFactor), Mode: r.String("mode", "rows")}
	default:
		return nil, catalog.Unknown(class)
	}
	if err := r.Finish(); err != nil {
		return nil, err
	}
	if err := reg.Check(); err != nil {
		return nil, err
	}
	return reg, nil
}
