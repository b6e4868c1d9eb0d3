package backend

import "math/rand/v2"

// SeededUniform is what RandomUniformFrom draws: n samples from [0, 1)
// of a PCG generator seeded with (seed0, seed1), each a multiple of 2⁻²⁴
// for Float32 (so that rounding to float32 never gives 1) or of 2⁻⁵³ for
// Float64. Engines upload these values as they are, so that a seed gives
// the same numbers on every engine.
func SeededUniform(seed0, seed1 uint64, n int, dtype DType) []float64 {
	r := rand.New(rand.NewPCG(seed0, seed1))
	out := make([]float64, n)
	bits, scale := 53, 1.0/(1<<53)
	if dtype == Float32 {
		bits, scale = 24, 1.0/(1<<24)
	}
	for i := range out {
		out[i] = float64(r.Uint64()>>(64-bits)) * scale
	}
	return out
}

// SeedWords is the PCG seed of a seed tensor's two values (whole
// numbers, as a SeedGenerator's state holds them).
func SeedWords(values []float64) (uint64, uint64) {
	return uint64(int64(values[0])), uint64(int64(values[1]))
}
