package initializers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Initializer fills a new weight of a shape.
type Initializer interface {
	// Name is the Keras name, e.g. "glorot_uniform".
	Name() string
	// Init returns the values for a weight of shape s (row-major), drawing
	// randomness from rng.
	Init(s backend.Shape, rng *rand.Rand) []float32
}

// Get returns the initializer a Keras name denotes: "glorot_uniform",
// "glorot_normal", "he_normal", "he_uniform", "lecun_normal",
// "lecun_uniform", "orthogonal", "random_uniform" (or "uniform"),
// "random_normal" (or "normal"), "truncated_normal", "variance_scaling",
// "constant", "zeros" or "ones", with Keras's settings in parentheses
// where they are not the defaults: "random_normal(stddev=0.02)",
// "variance_scaling(scale=2, mode=fan_out, distribution=uniform)",
// "constant(value=0.3)" (each initializer's Name gives this form). An
// empty name returns def.
func Get(name string, def Initializer) (Initializer, error) {
	if name == "" {
		return def, nil
	}
	base, args, err := parseSpec(name)
	if err != nil {
		return nil, err
	}
	a := &specArgs{what: name, args: args}
	var init Initializer
	switch base {
	case "glorot_uniform":
		init = GlorotUniform{}
	case "glorot_normal":
		init = GlorotNormal{}
	case "he_normal":
		init = HeNormal{}
	case "he_uniform":
		init = HeUniform{}
	case "lecun_normal":
		init = LecunNormal
	case "lecun_uniform":
		init = LecunUniform
	case "zeros":
		init = Constant{}
	case "ones":
		init = Constant{Value: 1}
	case "constant":
		init = Constant{Value: a.float("value", 0)}
	case "orthogonal":
		init = Orthogonal{Gain: a.float("gain", 1)}
	case "uniform", "random_uniform":
		init = RandomUniform{Min: a.float("minval", -0.05), Max: a.float("maxval", 0.05)}
	case "normal", "random_normal":
		init = RandomNormal{Mean: a.float("mean", 0), Stddev: a.float("stddev", 0.05)}
	case "truncated_normal":
		init = TruncatedNormal{Mean: a.float("mean", 0), Stddev: a.float("stddev", 0.05)}
	case "variance_scaling":
		init = VarianceScaling{Scale: a.float("scale", 1), Mode: a.string("mode", "fan_in"), Distribution: a.string("distribution", "truncated_normal")}
	default:
		return nil, fmt.Errorf("unknown initializer %q: use %s", name, strings.Join(Names(), ", "))
	}
	if err := a.finish(); err != nil {
		return nil, err
	}
	if c, ok := init.(interface{ check() error }); ok {
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("initializer %s: %w", name, err)
		}
	}
	return init, nil
}

// Names lists the initializers Get knows.
func Names() []string {
	return []string{"glorot_uniform", "glorot_normal", "he_normal", "he_uniform", "lecun_normal", "lecun_uniform", "orthogonal",
		"random_uniform", "random_normal", "truncated_normal", "variance_scaling", "constant", "zeros", "ones"}
}

// fans computes Keras's fan_in and fan_out: for a kernel of shape
// (..., in, out), the receptive field size times in and out.
func fans(s backend.Shape) (in, out float64) {
	switch len(s) {
	case 0:
		return 1, 1
	case 1:
		return float64(s[0]), float64(s[0])
	}
	field := 1
	for _, d := range s[:len(s)-2] {
		field *= d
	}
	return float64(s[len(s)-2] * field), float64(s[len(s)-1] * field)
}

func uniform(s backend.Shape, rng *rand.Rand, limit float64) []float32 {
	v := make([]float32, s.Size())
	for i := range v {
		v[i] = float32((2*rng.Float64() - 1) * limit)
	}
	return v
}

// truncatedNormal draws from a normal distribution with the given standard
// deviation, redrawing values more than two deviations out, as Keras does.
func truncatedNormal(s backend.Shape, rng *rand.Rand, stddev float64) []float32 {
	v := make([]float32, s.Size())
	for i := range v {
		x := rng.NormFloat64()
		for math.Abs(x) > 2 {
			x = rng.NormFloat64()
		}
		v[i] = float32(x * stddev)
	}
	return v
}

// GlorotUniform draws from U(-l, l) with l = sqrt(6 / (fan_in + fan_out)):
// Keras's default kernel initializer.
type GlorotUniform struct{}

// Name returns "glorot_uniform".
func (GlorotUniform) Name() string { return "glorot_uniform" }

func (GlorotUniform) kerasObject() (string, serialization.Config) {
	return "GlorotUniform", serialization.Config{"seed": nil}
}

// Init implements Initializer.
func (GlorotUniform) Init(s backend.Shape, rng *rand.Rand) []float32 {
	in, out := fans(s)
	return uniform(s, rng, math.Sqrt(6/(in+out)))
}

// GlorotNormal draws from a truncated normal with
// stddev = sqrt(2 / (fan_in + fan_out)) / .87962566103423978.
type GlorotNormal struct{}

// Name returns "glorot_normal".
func (GlorotNormal) Name() string { return "glorot_normal" }

func (GlorotNormal) kerasObject() (string, serialization.Config) {
	return "GlorotNormal", serialization.Config{"seed": nil}
}

// Init implements Initializer.
func (GlorotNormal) Init(s backend.Shape, rng *rand.Rand) []float32 {
	in, out := fans(s)
	return truncatedNormal(s, rng, math.Sqrt(2/(in+out))/.87962566103423978)
}

// HeNormal draws from a truncated normal with stddev = sqrt(2 / fan_in),
// the usual choice before a relu.
type HeNormal struct{}

// Name returns "he_normal".
func (HeNormal) Name() string { return "he_normal" }

func (HeNormal) kerasObject() (string, serialization.Config) {
	return "HeNormal", serialization.Config{"seed": nil}
}

// Init implements Initializer.
func (HeNormal) Init(s backend.Shape, rng *rand.Rand) []float32 {
	in, _ := fans(s)
	return truncatedNormal(s, rng, math.Sqrt(2/in)/.87962566103423978)
}

// HeUniform draws from U(-l, l) with l = sqrt(6 / fan_in).
type HeUniform struct{}

// Name returns "he_uniform".
func (HeUniform) Name() string { return "he_uniform" }

func (HeUniform) kerasObject() (string, serialization.Config) {
	return "HeUniform", serialization.Config{"seed": nil}
}

// Init implements Initializer.
func (HeUniform) Init(s backend.Shape, rng *rand.Rand) []float32 {
	in, _ := fans(s)
	return uniform(s, rng, math.Sqrt(6/in))
}

// Constant fills every value with Value ("zeros" is Constant{}).
type Constant struct{ Value float64 }

// Name returns "zeros", "ones" or "constant(value=...)".
func (c Constant) Name() string {
	switch c.Value {
	case 0:
		return "zeros"
	case 1:
		return "ones"
	}
	return spec("constant", "value", c.Value)
}

// Init implements Initializer.
func (c Constant) Init(s backend.Shape, _ *rand.Rand) []float32 {
	v := make([]float32, s.Size())
	for i := range v {
		v[i] = float32(c.Value)
	}
	return v
}

func (c Constant) check() error {
	if math.IsNaN(c.Value) || math.IsInf(c.Value, 0) {
		return fmt.Errorf("the value must be finite, got %v", c.Value)
	}
	return nil
}

func (c Constant) kerasObject() (string, serialization.Config) {
	switch c.Value {
	case 0:
		return "Zeros", serialization.Config{}
	case 1:
		return "Ones", serialization.Config{}
	}
	return "Constant", serialization.Config{"value": c.Value}
}
