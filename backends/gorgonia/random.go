package gorgonia

import "math/rand/v2"

// fillUniform fills a float tensor's data with uniform draws in [0, 1).
func fillUniform(data any, rng *rand.Rand) {
	switch x := data.(type) {
	case []float32:
		for i := range x {
			x[i] = rng.Float32()
		}
	case []float64:
		for i := range x {
			x[i] = rng.Float64()
		}
	}
}

// fillNormal fills a float tensor's data with standard normal draws.
func fillNormal(data any, rng *rand.Rand) {
	switch x := data.(type) {
	case []float32:
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
	case []float64:
		for i := range x {
			x[i] = rng.NormFloat64()
		}
	}
}
