package initializers

import (
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// RandomUniform draws from U(Min, Max), like
// keras.initializers.RandomUniform; the zero value is Keras's default,
// U(-0.05, 0.05), which is also what the name "uniform" (Embedding's
// default) gives.
type RandomUniform struct{ Min, Max float64 }

// Name returns "uniform" for Keras's default range, else
// "random_uniform".
func (r RandomUniform) Name() string {
	if r == (RandomUniform{}) || r == (RandomUniform{-0.05, 0.05}) {
		return "uniform"
	}
	return "random_uniform"
}

// Init implements Initializer.
func (r RandomUniform) Init(s backend.Shape, rng *rand.Rand) []float32 {
	lo, hi := r.Min, r.Max
	if r == (RandomUniform{}) {
		lo, hi = -0.05, 0.05
	}
	v := make([]float32, s.Size())
	for i := range v {
		v[i] = float32(lo + (hi-lo)*rng.Float64())
	}
	return v
}
