package random

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// gammaRounds is how many Marsaglia-Tsang candidates Gamma draws per
// value: each is accepted with probability above 0.95 (alpha >= 1, as
// every draw is after the boost below), so all 12 are refused with
// probability below 0.05^12 ≈ 2e-16; the last candidate is then kept.
const gammaRounds = 12

// Gamma draws from the gamma distribution with shape alpha and scale 1,
// as keras.random.gamma: Marsaglia and Tsang's method, vectorised over a
// fixed number of candidates (a compiled step cannot loop until
// acceptance), with alpha < 1 drawn as Gamma(alpha+1)·U^(1/alpha).
func Gamma(b backend.Builder, shape []int, alpha float64, seed Seed) backend.Value {
	s, ok := shapeOf(b, "Gamma", shape)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if !(alpha > 0) || math.IsInf(alpha, 0) {
		return b.Fail(s, fmt.Errorf("random.Gamma: alpha %v must be a positive number", alpha))
	}
	return b.Reshape(gamma(b, s.Size(), b.Scalar(alpha), seed.uniform01(b, backend.Shape{3*gammaRounds + 1, s.Size()}), 0), s)
}

// gamma draws n values of Gamma(alpha) (shape (1, n)) for alpha a
// value that broadcasts with (1, n), from the rows of u, a (.., n)
// tensor of uniform numbers in [0, 1), starting at row first:
// 3·gammaRounds + 1 rows (one draw, so that every kind of Seed gives
// independent numbers).
func gamma(b backend.Builder, n int, alpha backend.Value, u backend.Value, first int) backend.Value {
	row := func(x backend.Value, k int) backend.Value { return b.Slice(x, []int{k, 0}, []int{1, n}) }
	rows := func(k, count int) backend.Value { return b.Slice(u, []int{first + k, 0}, []int{count, n}) }
	small := b.Greater(b.Scalar(1), alpha) // alpha < 1: boosted
	d := b.Sub(b.Add(alpha, small), b.Scalar(1.0/3))
	c := b.Div(b.Scalar(1), b.Sqrt(b.Mul(d, b.Scalar(9))))
	// Box-Muller normals, then the acceptance uniforms; 1-u is in (0, 1].
	r1, r2 := rows(0, gammaRounds), rows(gammaRounds, gammaRounds)
	z := b.Mul(b.Sqrt(b.Mul(b.Log(b.Sub(b.Scalar(1), r1)), b.Scalar(-2))), b.Cos(b.Mul(r2, b.Scalar(2*math.Pi))))
	logU := b.Log(b.Sub(b.Scalar(1), rows(2*gammaRounds, gammaRounds)))
	v := b.Add(b.Scalar(1), b.Mul(c, z))
	v3 := b.Mul(b.Mul(v, v), v)
	positive := b.Greater(v3, b.Scalar(0))
	safe := ops.Where(b, positive, v3, b.Scalar(1))
	// Accept where log(u) < z²/2 + d - d·v³ + d·log(v³).
	bound := b.Add(b.Add(b.Mul(b.Square(z), b.Scalar(0.5)), d), b.Mul(d, b.Sub(b.Log(safe), safe)))
	accept := b.Mul(positive, b.Greater(bound, logU))
	candidates := b.Mul(safe, d)
	out := row(candidates, gammaRounds-1)
	for k := gammaRounds - 2; k >= 0; k-- { // the first accepted candidate
		out = ops.Where(b, row(accept, k), row(candidates, k), out)
	}
	boost := b.Exp(b.Div(b.Log(b.Sub(b.Scalar(1), rows(3*gammaRounds, 1))), alpha))
	return b.Mul(out, ops.Where(b, small, boost, b.Scalar(1)))
}

// Beta draws from the beta distribution with parameters alpha and beta,
// as keras.random.beta: X/(X+Y) for X ~ Gamma(alpha), Y ~ Gamma(beta)
// (0.5 where both underflow to 0).
func Beta(b backend.Builder, shape []int, alpha, beta float64, seed Seed) backend.Value {
	for _, p := range []float64{alpha, beta} {
		if !(p > 0) || math.IsInf(p, 0) {
			return b.Fail(backend.Shape(shape), fmt.Errorf("random.Beta: alpha %v and beta %v must be positive numbers", alpha, beta))
		}
	}
	return BetaOf(b, shape, b.Scalar(alpha), b.Scalar(beta), seed)
}

// BetaOf is Beta with alpha and beta computed in the step (Keras's
// tensor arguments): scalars, or values that broadcast with shape
// flattened to (1, n). They must be positive; they are not checked.
func BetaOf(b backend.Builder, shape []int, alpha, beta backend.Value, seed Seed) backend.Value {
	s, ok := shapeOf(b, "Beta", shape)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if alpha == nil || beta == nil {
		return b.Fail(s, fmt.Errorf("random.BetaOf: alpha and beta must not be nil"))
	}
	n := s.Size()
	u := seed.uniform01(b, backend.Shape{2 * (3*gammaRounds + 1), n})
	x := gamma(b, n, b.StopGradient(alpha), u, 0)
	y := gamma(b, n, b.StopGradient(beta), u, 3*gammaRounds+1)
	sum := b.Add(x, y)
	zero := ops.Equal(b, sum, b.Scalar(0))
	return b.Reshape(ops.Where(b, zero, b.Scalar(0.5), b.Div(x, ops.Where(b, zero, b.Scalar(1), sum))), s)
}
