package initializers

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras/backend"
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
// "glorot_normal", "he_normal", "he_uniform", "zeros" or "ones". An empty
// name returns def.
func Get(name string, def Initializer) (Initializer, error) {
	switch name {
	case "":
		return def, nil
	case "glorot_uniform":
		return GlorotUniform{}, nil
	case "glorot_normal":
		return GlorotNormal{}, nil
	case "he_normal":
		return HeNormal{}, nil
	case "he_uniform":
		return HeUniform{}, nil
	case "zeros":
		return Constant{}, nil
	case "ones":
		return Constant{Value: 1}, nil
	case "orthogonal":
		return Orthogonal{}, nil
	case "uniform", "random_uniform":
		return RandomUniform{}, nil
	}
	return nil, fmt.Errorf("unknown initializer %q: use glorot_uniform, glorot_normal, he_normal, he_uniform, orthogonal, uniform, zeros or ones", name)
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

// Init implements Initializer.
func (HeNormal) Init(s backend.Shape, rng *rand.Rand) []float32 {
	in, _ := fans(s)
	return truncatedNormal(s, rng, math.Sqrt(2/in)/.87962566103423978)
}

// HeUniform draws from U(-l, l) with l = sqrt(6 / fan_in).
type HeUniform struct{}

// Name returns "he_uniform".
func (HeUniform) Name() string { return "he_uniform" }

// Init implements Initializer.
func (HeUniform) Init(s backend.Shape, rng *rand.Rand) []float32 {
	in, _ := fans(s)
	return uniform(s, rng, math.Sqrt(6/in))
}

// Constant fills every value with Value ("zeros" is Constant{}).
type Constant struct{ Value float32 }

// Name returns "zeros", "ones" or "constant".
func (c Constant) Name() string {
	switch c.Value {
	case 0:
		return "zeros"
	case 1:
		return "ones"
	}
	return "constant"
}

// Init implements Initializer.
func (c Constant) Init(s backend.Shape, _ *rand.Rand) []float32 {
	v := make([]float32, s.Size())
	for i := range v {
		v[i] = c.Value
	}
	return v
}
