package random_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/random"
)

// Gamma and Beta have their distributions' means and standard
// deviations (20000 draws: means within 5 standard errors), for shapes
// below and above 1, with every kind of seed (a SeedGenerator's state
// included: each function draws once from it, so its numbers are
// independent), on every engine.
func TestGammaAndBeta(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, seed := range []struct {
			name string
			seed func(b backend.Builder) random.Seed
		}{
			{"stream", func(backend.Builder) random.Seed { return random.Stream() }},
			{"fixed", func(backend.Builder) random.Seed { return random.Fixed(5) }},
			{"generator", func(b backend.Builder) random.Seed {
				return random.NewSeedGenerator(b, b.Constant([]float64{3, 0}, backend.Shape{2})).Next()
			}},
		} {
			t.Run(seed.name, func(t *testing.T) {
				out := runTwice(t, be, func(b backend.Builder) []backend.Value {
					return []backend.Value{
						random.Gamma(b, []int{n}, 0.5, seed.seed(b)),
						random.Gamma(b, []int{n / 2, 2}, 2.5, seed.seed(b)),
						random.Beta(b, []int{n}, 0.2, 0.2, seed.seed(b)),
						random.Beta(b, []int{n}, 2, 5, seed.seed(b)),
						random.BetaOf(b, []int{n}, b.Add(b.Scalar(1.5), b.Scalar(0.5)), b.Scalar(5), seed.seed(b)),
					}
				})[0]
				check := func(what string, v []float64, mean, std float64) {
					t.Helper()
					m, s := moments(v)
					if math.Abs(m-mean) > 5*std/math.Sqrt(n) {
						t.Errorf("%s mean = %.4f, want %.4f", what, m, mean)
					}
					if math.Abs(s-std) > 0.05*std {
						t.Errorf("%s std = %.4f, want %.4f", what, s, std)
					}
				}
				check("gamma(0.5)", out[0], 0.5, math.Sqrt(0.5))
				check("gamma(2.5)", out[1], 2.5, math.Sqrt(2.5))
				beta := func(a, c float64) (float64, float64) {
					return a / (a + c), math.Sqrt(a * c / ((a + c) * (a + c) * (a + c + 1)))
				}
				m, s := beta(0.2, 0.2)
				check("beta(0.2, 0.2)", out[2], m, s)
				m, s = beta(2, 5)
				check("beta(2, 5)", out[3], m, s)
				check("beta(2, 5) with alpha computed", out[4], m, s)
				for i, o := range out {
					for _, v := range o {
						if v < 0 || math.IsNaN(v) || (i >= 2 && v > 1) {
							t.Fatalf("output %d drew %v", i, v)
						}
					}
				}
			})
		}
	})
}

// Bad parameters are refused with the function's name and the value.
func TestGammaAndBetaErrors(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range []struct {
			fn   func(b backend.Builder) backend.Value
			want string
		}{
			{func(b backend.Builder) backend.Value { return random.Gamma(b, []int{3}, 0, random.Stream()) }, "random.Gamma: alpha 0 must be a positive number"},
			{func(b backend.Builder) backend.Value { return random.Beta(b, []int{3}, 1, -2, random.Stream()) }, "random.Beta: alpha 1 and beta -2 must be positive numbers"},
			{func(b backend.Builder) backend.Value { return random.Beta(b, []int{0}, 1, 1, random.Stream()) }, "every dimension must be positive"},
		} {
			_, err := be.Compile(func(b backend.Builder, _ []backend.Value) ([]backend.Value, error) {
				return []backend.Value{c.fn(b)}, b.Err()
			}, []backend.Spec{{Shape: backend.Shape{}, DType: backend.Float64}}, backend.CompileOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to say %q", err, c.want)
			}
		}
	})
}
