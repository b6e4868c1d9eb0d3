package initializers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/serialization"
)

// kerasClasses maps kerasgo's initializer names to Keras's class names.
var kerasClasses = map[string]string{
	"glorot_uniform": "GlorotUniform",
	"glorot_normal":  "GlorotNormal",
	"he_normal":      "HeNormal",
	"he_uniform":     "HeUniform",
	"zeros":          "Zeros",
	"ones":           "Ones",
	"orthogonal":     "Orthogonal",
	"uniform":        "RandomUniform",
}

// Serialize returns the Keras form of the initializer a name denotes (def
// when name is empty), as config.json holds it:
// {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null}}.
func Serialize(name, def string) (serialization.Object, error) {
	if name == "" {
		name = def
	}
	class, ok := kerasClasses[name]
	if !ok {
		return serialization.Object{}, fmt.Errorf("initializer %q cannot be saved: use one of glorot_uniform, glorot_normal, he_normal, he_uniform, orthogonal, uniform, zeros, ones", name)
	}
	cfg := serialization.Config{}
	if class != "Zeros" && class != "Ones" {
		cfg["seed"] = nil
	}
	if class == "Orthogonal" {
		cfg["gain"] = 1.0
	}
	if class == "RandomUniform" {
		cfg["minval"], cfg["maxval"] = -0.05, 0.05
	}
	return serialization.NewObject("keras.initializers", class, cfg), nil
}

// Deserialize returns kerasgo's name for a serialized Keras initializer,
// a class object or a name string. The seed is accepted and not used: it
// only decides the starting values, which a loaded model replaces.
func Deserialize(v any) (string, error) {
	class, cfg, ok := serialization.ClassOrName(v)
	if !ok {
		return "", fmt.Errorf("cannot read initializer %v", v)
	}
	for name, c := range kerasClasses {
		if class == c || class == name {
			r := serialization.NewReader("initializer "+class, cfg)
			r.Ignore("seed")
			if class == "RandomUniform" {
				r.Expect("minval", -0.05, "kerasgo reads RandomUniform with Keras's default range only")
				r.Expect("maxval", 0.05, "kerasgo reads RandomUniform with Keras's default range only")
			}
			if class == "Orthogonal" {
				r.Expect("gain", 1.0, "kerasgo's orthogonal initializer is saved by name only")
			}
			return name, r.Finish()
		}
	}
	return "", fmt.Errorf("kerasgo has no %s initializer yet (it has glorot_uniform, glorot_normal, he_normal, he_uniform, orthogonal, uniform, zeros, ones)", class)
}
