package initializers

import (
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// WithFans returns init drawing with the given fans, for a weight whose
// fans are not its last two axes' (an EinsumDense kernel, whose fan_in and
// fan_out are the products of its input and output axes, Keras's
// VarianceScaling input_axes and output_axes). Only Keras's
// VarianceScaling family (Glorot, He, Lecun, VarianceScaling) reads fans;
// any other initializer is returned as it is.
func WithFans(init Initializer, fanIn, fanOut int) Initializer {
	switch init.(type) {
	case GlorotUniform, GlorotNormal, HeNormal, HeUniform, VarianceScaling:
		return fanned{init, fanIn, fanOut}
	}
	return init
}

// fanned draws its initializer's values for a (fanIn, fanOut) matrix: the
// values are independent, so only their count and spread matter, and
// both are the weight's.
type fanned struct {
	Initializer
	fanIn, fanOut int
}

// Init implements Initializer.
func (f fanned) Init(s backend.Shape, rng *rand.Rand) []float32 {
	if f.fanIn*f.fanOut != s.Size() {
		return f.Initializer.Init(s, rng)
	}
	return f.Initializer.Init(backend.Shape{f.fanIn, f.fanOut}, rng)
}
