package random

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// Seed picks where a random op's numbers come from; see the package doc.
type Seed struct {
	value uint64
	fixed bool
	// state is a SeedGenerator's state for one draw (nil otherwise).
	state backend.Value
}

// Fixed is an integer seed: the same numbers on every run.
func Fixed(n int64) Seed { return Seed{value: uint64(n), fixed: true} }

// IsFixed reports whether the seed is Fixed.
func (sd Seed) IsFixed() bool { return sd.fixed }

// Stream is the computation's stream (the zero Seed): fresh numbers on
// every run, reproducible from the compile seed and the step.
func Stream() Seed { return Seed{} }

// uniform01 is a tensor of shape s from [0, 1).
func (sd Seed) uniform01(b backend.Builder, s backend.Shape) backend.Value {
	if sd.state != nil {
		return b.RandomUniformFrom(sd.state, s)
	}
	if !sd.fixed {
		return b.RandomUniform(s)
	}
	r := rand.New(rand.NewPCG(sd.value, 0x6b657261735f726e))
	data := make([]float64, s.Size())
	for i := range data {
		data[i] = r.Float64()
	}
	if len(s) == 0 {
		return b.Scalar(data[0])
	}
	return b.Constant(data, s)
}

// normal01 is a tensor of shape s of standard normal numbers.
func (sd Seed) normal01(b backend.Builder, s backend.Shape) backend.Value {
	if sd.state != nil {
		// Box-Muller over two uniform draws of the state's stream.
		n := s.Size()
		u := b.RandomUniformFrom(sd.state, backend.Shape{2, n})
		u1 := b.Reshape(b.Slice(u, []int{0, 0}, []int{1, n}), s)
		u2 := b.Reshape(b.Slice(u, []int{1, 0}, []int{1, n}), s)
		radius := b.Sqrt(b.Mul(b.Log(b.Sub(b.Scalar(1), u1)), b.Scalar(-2))) // 1-u1 in (0, 1]
		return b.Mul(radius, b.Cos(b.Mul(u2, b.Scalar(2*math.Pi))))
	}
	if !sd.fixed {
		return b.RandomNormal(s)
	}
	r := rand.New(rand.NewPCG(sd.value, 0x6b657261735f6e6f))
	data := make([]float64, s.Size())
	for i := range data {
		data[i] = r.NormFloat64()
	}
	if len(s) == 0 {
		return b.Scalar(data[0])
	}
	return b.Constant(data, s)
}

func shapeOf(b backend.Builder, op string, shape []int) (backend.Shape, bool) {
	for _, d := range shape {
		if d <= 0 {
			b.Fail(nil, fmt.Errorf("random.%s: shape %v: every dimension must be positive", op, shape))
			return nil, false
		}
	}
	return backend.Shape(append([]int(nil), shape...)), true
}

// Normal draws from the normal distribution with mean and stddev.
func Normal(b backend.Builder, shape []int, mean, stddev float64, seed Seed) backend.Value {
	s, ok := shapeOf(b, "Normal", shape)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	return b.Add(b.Mul(seed.normal01(b, s), b.Scalar(stddev)), b.Scalar(mean))
}

// Uniform draws from [minval, maxval).
func Uniform(b backend.Builder, shape []int, minval, maxval float64, seed Seed) backend.Value {
	s, ok := shapeOf(b, "Uniform", shape)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if !(maxval > minval) {
		return b.Fail(s, fmt.Errorf("random.Uniform: maxval %v must be above minval %v", maxval, minval))
	}
	return b.Add(b.Mul(seed.uniform01(b, s), b.Scalar(maxval-minval)), b.Scalar(minval))
}

// TruncatedNormal draws from the normal distribution with mean and
// stddev, cut at two standard deviations, as Keras (by the inverse of
// the normal CDF on the kept range, so no value is redrawn).
func TruncatedNormal(b backend.Builder, shape []int, mean, stddev float64, seed Seed) backend.Value {
	s, ok := shapeOf(b, "TruncatedNormal", shape)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	lo := 0.5 * math.Erfc(math.Sqrt2) // Φ(-2)
	u := b.Add(b.Mul(seed.uniform01(b, s), b.Scalar(1-2*lo)), b.Scalar(lo))
	z := b.Mul(b.ErfInv(b.Sub(b.Mul(u, b.Scalar(2)), b.Scalar(1))), b.Scalar(math.Sqrt2))
	z = ops.Clip(b, z, -2, 2) // float32 rounding at the ends
	return b.Add(b.Mul(z, b.Scalar(stddev)), b.Scalar(mean))
}

// Randint draws whole numbers from [minval, maxval), in the float dtype.
func Randint(b backend.Builder, shape []int, minval, maxval int, seed Seed) backend.Value {
	s, ok := shapeOf(b, "Randint", shape)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	if maxval <= minval {
		return b.Fail(s, fmt.Errorf("random.Randint: maxval %d must be above minval %d", maxval, minval))
	}
	u := b.Mul(seed.uniform01(b, s), b.Scalar(float64(maxval-minval)))
	return b.Add(ops.Minimum(b, b.Floor(u), b.Scalar(float64(maxval-minval-1))), b.Scalar(float64(minval)))
}

// Categorical draws numSamples class indices per row of logits (batch,
// classes), each class with probability softmax(logits): (batch,
// numSamples), whole numbers in the float dtype. It uses the Gumbel-max
// trick: the argmax of the logits plus Gumbel noise.
func Categorical(b backend.Builder, logits backend.Value, numSamples int, seed Seed) backend.Value {
	if logits == nil {
		return b.Fail(nil, fmt.Errorf("random.Categorical: logits is nil"))
	}
	ls := logits.Shape()
	if len(ls) != 2 || numSamples <= 0 {
		return b.Fail(nil, fmt.Errorf("random.Categorical: logits of shape %v with %d samples: want (batch, classes) and at least one sample", ls, numSamples))
	}
	u := seed.uniform01(b, backend.Shape{ls[0], numSamples, ls[1]})
	// Gumbel noise -log(-log(u)), u kept off 0
	u = b.Maximum(u, b.Scalar(1e-20))
	g := b.Neg(b.Log(b.Neg(b.Log(u))))
	scores := b.Add(b.Reshape(b.StopGradient(logits), backend.Shape{ls[0], 1, ls[1]}), g)
	return b.ArgMax(scores)
}

// Dropout zeroes each value of x with probability rate and scales the
// rest by 1/(1-rate); noiseShape (nil: x's shape) broadcasts the mask, as
// Keras's noise_shape.
func Dropout(b backend.Builder, x backend.Value, rate float64, noiseShape []int, seed Seed) backend.Value {
	if x == nil {
		return b.Fail(nil, fmt.Errorf("random.Dropout: inputs is nil"))
	}
	if rate < 0 || rate >= 1 {
		return b.Fail(x.Shape(), fmt.Errorf("random.Dropout: rate %v must be in [0, 1)", rate))
	}
	s := x.Shape()
	if noiseShape != nil {
		s = backend.Shape(append([]int(nil), noiseShape...))
	}
	keep := b.Greater(seed.uniform01(b, s), b.Scalar(rate))
	return b.Mul(b.Mul(x, keep), b.Scalar(1/(1-rate)))
}

// Shuffle permutes x along axis: the order of random keys, sorted.
func Shuffle(b backend.Builder, x backend.Value, axis int, seed Seed) backend.Value {
	if x == nil {
		return b.Fail(nil, fmt.Errorf("random.Shuffle: x is nil"))
	}
	s := x.Shape()
	if axis < -len(s) || axis >= len(s) {
		return b.Fail(s, fmt.Errorf("random.Shuffle: axis %d is out of range for x of shape %v", axis, s))
	}
	if axis < 0 {
		axis += len(s)
	}
	keys := seed.uniform01(b, backend.Shape{s[axis]})
	return ops.Take(b, x, ops.Argsort(b, keys, 0), ops.Axis(axis))
}
