package initializers

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// RandomNormal draws from N(Mean, Stddev²), as
// keras.initializers.RandomNormal; the zero value is Keras's default,
// N(0, 0.05²) (a Stddev of 0 means 0.05).
type RandomNormal struct{ Mean, Stddev float64 }

// TruncatedNormal draws from N(Mean, Stddev²), redrawing values more
// than two deviations from the mean, as keras.initializers.TruncatedNormal;
// the zero value is Keras's default, stddev 0.05.
type TruncatedNormal struct{ Mean, Stddev float64 }

func stddevOr(s float64) float64 {
	if s == 0 {
		return 0.05
	}
	return s
}

func checkNormal(class string, mean, stddev float64) error {
	if math.IsNaN(mean) || math.IsInf(mean, 0) || !(stddev > 0) || math.IsInf(stddev, 0) {
		return fmt.Errorf("%s needs a finite mean and a positive stddev, got mean %v, stddev %v", class, mean, stddev)
	}
	return nil
}

// Name returns "random_normal", with the settings that are not Keras's
// defaults: "random_normal(mean=0, stddev=0.02)".
func (r RandomNormal) Name() string {
	if r.Mean == 0 && stddevOr(r.Stddev) == 0.05 {
		return "random_normal"
	}
	return spec("random_normal", "mean", r.Mean, "stddev", stddevOr(r.Stddev))
}

// Init implements Initializer.
func (r RandomNormal) Init(s backend.Shape, rng *rand.Rand) []float32 {
	return normal(s, rng, r.Mean, stddevOr(r.Stddev))
}

func (r RandomNormal) check() error { return checkNormal("RandomNormal", r.Mean, stddevOr(r.Stddev)) }

func (r RandomNormal) kerasObject() (string, serialization.Config) {
	return "RandomNormal", serialization.Config{"mean": r.Mean, "stddev": stddevOr(r.Stddev), "seed": nil}
}

// Name returns "truncated_normal", with the settings that are not
// Keras's defaults: "truncated_normal(mean=0, stddev=0.5)".
func (r TruncatedNormal) Name() string {
	if r.Mean == 0 && stddevOr(r.Stddev) == 0.05 {
		return "truncated_normal"
	}
	return spec("truncated_normal", "mean", r.Mean, "stddev", stddevOr(r.Stddev))
}

// Init implements Initializer.
func (r TruncatedNormal) Init(s backend.Shape, rng *rand.Rand) []float32 {
	v := truncatedNormal(s, rng, stddevOr(r.Stddev))
	for i := range v {
		v[i] += float32(r.Mean)
	}
	return v
}

func (r TruncatedNormal) check() error {
	return checkNormal("TruncatedNormal", r.Mean, stddevOr(r.Stddev))
}

func (r TruncatedNormal) kerasObject() (string, serialization.Config) {
	return "TruncatedNormal", serialization.Config{"mean": r.Mean, "stddev": stddevOr(r.Stddev), "seed": nil}
}

// normal draws from N(mean, stddev²).
func normal(s backend.Shape, rng *rand.Rand, mean, stddev float64) []float32 {
	v := make([]float32, s.Size())
	for i := range v {
		v[i] = float32(mean + stddev*rng.NormFloat64())
	}
	return v
}
