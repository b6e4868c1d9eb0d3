package initializers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/serialization"
)

// kerasObject is implemented by the built-in initializers: their Keras
// class and config.
type kerasObject interface {
	kerasObject() (class string, cfg serialization.Config)
}

// Serialize returns the Keras form of the initializer a name denotes (def
// when name is empty; see Get for the names), as config.json holds it:
// {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}}.
func Serialize(name, def string) (serialization.Object, error) {
	if name == "" {
		name = def
	}
	init, err := Get(name, nil)
	if err != nil {
		return serialization.Object{}, fmt.Errorf("initializer %q cannot be saved: %w", name, err)
	}
	o, ok := init.(kerasObject)
	if !ok {
		return serialization.Object{}, fmt.Errorf("initializer %q cannot be saved in Keras's format", name)
	}
	class, cfg := o.kerasObject()
	for k, v := range cfg { // Keras writes its settings as floats
		if f, isFloat := v.(float64); isFloat {
			cfg[k] = serialization.Float(f)
		}
	}
	return serialization.NewObject("keras.initializers", class, cfg), nil
}

// Deserialize returns kerasgo's name (see Get) for a serialized Keras
// initializer, a class object or a name string. The seed is accepted and
// not used: it only decides the starting values, which a loaded model
// replaces.
func Deserialize(v any) (string, error) {
	class, cfg, ok := serialization.ClassOrName(v)
	if !ok {
		return "", fmt.Errorf("cannot read initializer %v", v)
	}
	if cfg == nil { // a name, "he_normal" or "HeNormal"
		init, err := Get(serialization.SnakeCase(class), nil)
		if err != nil {
			return "", err
		}
		return init.Name(), nil
	}
	r := serialization.NewReader("initializer "+class, cfg)
	r.Ignore("seed")
	var init Initializer
	switch class {
	case "GlorotUniform":
		init = GlorotUniform{}
	case "GlorotNormal":
		init = GlorotNormal{}
	case "HeNormal":
		init = HeNormal{}
	case "HeUniform":
		init = HeUniform{}
	case "LecunNormal":
		init = LecunNormal
	case "LecunUniform":
		init = LecunUniform
	case "Zeros":
		init = Constant{}
	case "Ones":
		init = Constant{Value: 1}
	case "Constant":
		init = Constant{Value: r.Float("value", 0)}
	case "Orthogonal", "OrthogonalInitializer": // the second is Keras 3.1 to 3.6's class name
		init = Orthogonal{Gain: r.Float("gain", 1)}
	case "RandomUniform":
		init = RandomUniform{Min: r.Float("minval", -0.05), Max: r.Float("maxval", 0.05)}
	case "RandomNormal":
		init = RandomNormal{Mean: r.Float("mean", 0), Stddev: r.Float("stddev", 0.05)}
	case "TruncatedNormal":
		init = TruncatedNormal{Mean: r.Float("mean", 0), Stddev: r.Float("stddev", 0.05)}
	case "VarianceScaling":
		init = VarianceScaling{Scale: r.Float("scale", 1), Mode: r.String("mode", "fan_in"), Distribution: r.String("distribution", "truncated_normal")}
	default:
		return "", fmt.Errorf("kerasgo has no %s initializer yet (it has %v)", class, Names())
	}
	if err := r.Finish(); err != nil {
		return "", err
	}
	if c, ok := init.(interface{ check() error }); ok {
		if err := c.check(); err != nil {
			return "", fmt.Errorf("initializer %s: %w", class, err)
		}
	}
	return init.Name(), nil
}
