package initializers

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomUniform draws from U(Min, Max), like
// keras.initializers.RandomUniform; the zero value is Keras's default,
// U(-0.05, 0.05), which is also what the name "uniform" (Embedding's
// default) gives.
type RandomUniform struct{ Min, Max float64 }

// Name returns "uniform" for Keras's default range, else
// "random_uniform(minval=..., maxval=...)".
func (r RandomUniform) Name() string {
	lo, hi := r.bounds()
	if lo == -0.05 && hi == 0.05 {
		return "uniform"
	}
	return spec("random_uniform", "minval", lo, "maxval", hi)
}

func (r RandomUniform) bounds() (lo, hi float64) {
	if r == (RandomUniform{}) {
		return -0.05, 0.05
	}
	return r.Min, r.Max
}

func (r RandomUniform) check() error {
	lo, hi := r.bounds()
	if !(lo <= hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return fmt.Errorf("minval and maxval must be finite with minval <= maxval, got %v and %v", lo, hi)
	}
	return nil
}

func (r RandomUniform) kerasObject() (string, serialization.Config) {
	lo, hi := r.bounds()
	return "RandomUniform", serialization.Config{"minval": lo, "maxval": hi, "seed": nil}
}

// Init implements Initializer.
func (r RandomUniform) Init(s backend.Shape, rng *rand.Rand) []float32 {
	lo, hi := r.bounds()
	v := make([]float32, s.Size())
	for i := range v {
		v[i] = float32(lo + (hi-lo)*rng.Float64())
	}
	return v
}
