package random

import (
	"fmt"
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// SeedGenerator is Keras's keras.random.SeedGenerator inside a
// computation: a state (seed, counter) that each draw reads and then
// advances, so that the draws of one call differ, and, kept in a layer's
// variable from step to step, so that every step draws new numbers that
// depend on the generator's seed alone (not on the compile seed, and the
// same on every engine).
//
// Keras keeps the state in a variable the generator owns; in kerasgo the
// layer owns it (a non-trainable (2,) weight whose initializer is
// SeedState) and passes it in, as Keras's stateless JAX code does:
//
//	gen := random.NewSeedGenerator(ctx.B, ctx.Weight(l.seedState))
//	noise := random.Normal(ctx.B, shape, 0, 1, gen.Next())
//	ctx.Assign(l.seedState, gen.State())
//
// A SeedGenerator belongs to one computation being built; the layer's
// variable carries the state between them. Like Keras's variable
// assignments, the state advances in training steps (layers.Context's
// Assign); in inference every call starts from the saved state.
type SeedGenerator struct {
	b     backend.Builder
	state backend.Value
}

// NewSeedGenerator starts a generator at state, a (2,) value of whole
// numbers (seed, counter): a layer's seed-state variable.
func NewSeedGenerator(b backend.Builder, state backend.Value) *SeedGenerator {
	if state == nil || !state.Shape().Equal(backend.Shape{2}) {
		var s backend.Shape
		if state != nil {
			s = state.Shape()
		}
		b.Fail(nil, fmt.Errorf("random.NewSeedGenerator: the state must have shape (2,) (seed, counter), got %v: keep it in a (2,) weight initialized by random.SeedState", s))
		return &SeedGenerator{b: b, state: b.Constant([]float64{0, 0}, backend.Shape{2})}
	}
	return &SeedGenerator{b: b, state: b.StopGradient(state)}
}

// Next returns the Seed of one draw and advances the counter (Keras's
// SeedGenerator.next()).
func (g *SeedGenerator) Next() Seed {
	sd := Seed{state: g.state}
	// The variable is float32, exact for whole numbers below 2²⁴: the
	// counter wraps there and carries into the seed, so no two draws of
	// the first 2⁴⁸ share a state.
	b := g.b
	next := b.Add(g.state, b.Constant([]float64{0, 1}, backend.Shape{2}))
	carry := b.Greater(b.Slice(next, []int{1}, []int{1}), b.Scalar(stateLimit-1)) // (1,); whole numbers, exact in float32
	g.state = b.Add(next, b.Mul(carry, b.Constant([]float64{1, -stateLimit}, backend.Shape{2})))
	return sd
}

// stateLimit bounds a state's numbers: 2²⁴, the whole numbers float32
// holds exactly.
const stateLimit = 1 << 24

// State is the generator's state after the draws so far: assign it to the
// layer's variable (layers.Context.Assign) so that the next step draws on.
func (g *SeedGenerator) State() backend.Value { return g.state }

// SeedState is the initializer of a seed generator's state variable: (Seed,
// 0), Keras's SeedGenerator(seed) starting state. Seed 0 draws a seed
// when the variable is initialized, as Keras's seed=None does; seeds are
// taken modulo 2²⁴, the whole numbers a float32 variable holds exactly.
type SeedState struct {
	Seed int64
}

// Name is the initializer's Keras-style name.
func (SeedState) Name() string { return "seed_generator_state" }

// Init returns (seed, 0) for the (2,) state variable.
func (s SeedState) Init(shape backend.Shape, rng *rand.Rand) []float32 {
	seed := s.Seed % stateLimit
	if seed < 0 {
		seed += stateLimit
	}
	if s.Seed == 0 {
		seed = int64(rng.IntN(stateLimit))
	}
	out := make([]float32, shape.Size())
	if len(out) > 0 {
		out[0] = float32(seed)
	}
	return out
}
