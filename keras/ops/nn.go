package ops

import "math"

// Constants of Keras's selu (keras/src/activations/activations.py).
const (
	seluAlpha = 1.67326324235437728481
	seluScale = 1.05070098735548049342
)

// Relu is max(x, 0).
func Relu(b Builder, x Value) Value { return b.Relu(x) }

// Relu6 is min(max(x, 0), 6).
func Relu6(b Builder, x Value) Value { return b.Minimum(b.Relu(x), scalar(b, 6)) }

// Sigmoid is 1/(1+e⁻ˣ).
func Sigmoid(b Builder, x Value) Value { return b.Sigmoid(x) }

// Softplus is log(1+eˣ), computed as relu(x) + log1p(e^-|x|) so that it
// never overflows.
func Softplus(b Builder, x Value) Value {
	return b.Add(b.Relu(x), b.Log1p(b.Exp(b.Neg(b.Abs(x)))))
}

// Softsign is x/(|x|+1).
func Softsign(b Builder, x Value) Value { return b.Div(x, b.Add(b.Abs(x), scalar(b, 1))) }

// Silu is x·sigmoid(x).
func Silu(b Builder, x Value) Value { return b.Mul(x, b.Sigmoid(x)) }

// Swish is Silu.
func Swish(b Builder, x Value) Value { return Silu(b, x) }

// LogSigmoid is log(sigmoid(x)) = -softplus(-x).
func LogSigmoid(b Builder, x Value) Value { return b.Neg(Softplus(b, b.Neg(x))) }

// LeakyRelu is x for x ≥ 0 and negativeSlope·x otherwise (Keras's default
// slope is 0.2).
func LeakyRelu(b Builder, x Value, negativeSlope float64) Value {
	if negativeSlope >= 0 && negativeSlope <= 1 { // max(x, s·x): one engine op
		return b.Maximum(x, b.Mul(x, scalar(b, negativeSlope)))
	}
	return b.Where(b.Greater(scalar(b, 0), x), b.Mul(x, scalar(b, negativeSlope)), x)
}

// HardSigmoid is relu6(x+3)/6.
func HardSigmoid(b Builder, x Value) Value {
	return b.Mul(Relu6(b, b.Add(x, scalar(b, 3))), scalar(b, 1.0/6))
}

// HardSilu is x·hard_sigmoid(x).
func HardSilu(b Builder, x Value) Value { return b.Mul(x, HardSigmoid(b, x)) }

// HardSwish is HardSilu.
func HardSwish(b Builder, x Value) Value { return HardSilu(b, x) }

// Elu is x for x > 0 and alpha·(eˣ-1) otherwise.
func Elu(b Builder, x Value, alpha float64) Value {
	neg := b.Expm1(b.Minimum(x, scalar(b, 0)))
	return b.Add(b.Relu(x), b.Mul(neg, scalar(b, alpha)))
}

// Selu is scale·elu(x, alpha) with Keras's fixed constants.
func Selu(b Builder, x Value) Value {
	return b.Mul(Elu(b, x, seluAlpha), scalar(b, seluScale))
}

// Celu is max(x, 0) + min(0, alpha·(e^(x/alpha) - 1)) (Keras's default
// alpha is 1).
func Celu(b Builder, x Value, alpha float64) Value {
	neg := b.Mul(b.Expm1(b.Div(b.Minimum(x, scalar(b, 0)), scalar(b, alpha))), scalar(b, alpha))
	return b.Add(b.Relu(x), neg)
}

// Gelu is the Gaussian error linear unit: exact, x/2·(1+erf(x/√2)), or
// with approximate (Keras's default) the tanh form.
func Gelu(b Builder, x Value, approximate bool) Value {
	half := b.Mul(x, scalar(b, 0.5))
	if !approximate {
		return b.Mul(half, b.Add(scalar(b, 1), b.Erf(b.Mul(x, scalar(b, 1/math.Sqrt2)))))
	}
	inner := b.Mul(b.Add(x, b.Mul(b.Mul(b.Square(x), x), scalar(b, 0.044715))), scalar(b, math.Sqrt(2/math.Pi)))
	return b.Mul(half, b.Add(scalar(b, 1), b.Tanh(inner)))
}

// Mish is x·tanh(softplus(x)).
func Mish(b Builder, x Value) Value { return b.Mul(x, b.Tanh(Softplus(b, x))) }

// SparsePlus is 0 for x ≤ -1, (x+1)²/4 for -1 < x < 1, and x for x ≥ 1.
func SparsePlus(b Builder, x Value) Value {
	mid := b.Mul(b.Square(b.Add(x, scalar(b, 1))), scalar(b, 0.25))
	return b.Where(b.Greater(scalar(b, -1), x), scalar(b, 0), b.Where(b.Greater(scalar(b, 1), x), mid, x))
}

// SparseSigmoid is 0 for x ≤ -1, (x+1)/2 between, and 1 for x ≥ 1.
func SparseSigmoid(b Builder, x Value) Value {
	return b.Mul(b.Add(b.Minimum(b.Maximum(x, scalar(b, -1)), scalar(b, 1)), scalar(b, 1)), scalar(b, 0.5))
}

// Squareplus is (x + √(x²+b))/2 (Keras's default b is 4).
func Squareplus(b Builder, x Value, bias float64) Value {
	return b.Mul(b.Add(x, b.Sqrt(b.Add(b.Square(x), scalar(b, bias)))), scalar(b, 0.5))
}

// HardTanh is x clipped to [-1, 1].
func HardTanh(b Builder, x Value) Value { return Clip(b, x, -1, 1) }

// SoftShrink is x-threshold above threshold, x+threshold below
// -threshold, and 0 between (Keras's default threshold is 0.5).
func SoftShrink(b Builder, x Value, threshold float64) Value {
	t := scalar(b, threshold)
	up := b.Where(b.Greater(x, t), b.Sub(x, t), scalar(b, 0))
	return b.Where(b.Greater(b.Neg(t), x), b.Add(x, t), up)
}

// HardShrink is x where |x| > threshold and 0 elsewhere (Keras's default
// threshold is 0.5).
func HardShrink(b Builder, x Value, threshold float64) Value {
	return b.Where(b.Greater(b.Abs(x), scalar(b, threshold)), x, scalar(b, 0))
}

// TanhShrink is x - tanh(x).
func TanhShrink(b Builder, x Value) Value { return b.Sub(x, b.Tanh(x)) }

// Threshold is x where x > threshold and defaultValue elsewhere.
func Threshold(b Builder, x Value, threshold, defaultValue float64) Value {
	return b.Where(b.Greater(x, scalar(b, threshold)), x, scalar(b, defaultValue))
}

// Glu is the gated linear unit: x's axis halves a and b give a·sigmoid(b).
func Glu(b Builder, x Value, axis int) Value {
	if missing(b, "Glu", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	a, ok := axisOf(b, "Glu", x, axis)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	n := x.Shape()[a]
	if n%2 != 0 {
		return failf(b, "Glu", x.Shape(), "axis %d of the input %v has odd size %d: it must split into two halves", a, x.Shape(), n)
	}
	return b.Mul(sliceAxis(b, x, a, 0, n/2), b.Sigmoid(sliceAxis(b, x, a, n/2, n/2)))
}

// Softmax normalises eˣ to sum to 1 along axis (or, with several axes,
// over all of them together).
func Softmax(b Builder, x Value, axes ...int) Value {
	return softmax(b, "Softmax", x, axes, false)
}

// LogSoftmax is log(softmax(x)) computed stably along axis.
func LogSoftmax(b Builder, x Value, axes ...int) Value {
	return softmax(b, "LogSoftmax", x, axes, true)
}

func softmax(b Builder, op string, x Value, axes []int, log bool) Value {
	if missing(b, op, []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	if len(axes) == 0 {
		axes = []int{-1}
	}
	as, ok := axesOf(b, op, x, axes)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	r := len(x.Shape())
	if len(as) == 1 && as[0] == r-1 {
		if log {
			return b.LogSoftmax(x)
		}
		return b.Softmax(x)
	}
	// move the axes to the end and fold them into one
	perm := []int{}
	for i := 0; i < r; i++ {
		if !contains(as, i) {
			perm = append(perm, i)
		}
	}
	perm = append(perm, as...)
	moved := Transpose(b, x, perm...)
	ms := moved.Shape()
	k := len(ms) - len(as)
	folded := append(ms[:k:k], Shape(ms[k:]).Size())
	var y Value
	if log {
		y = b.LogSoftmax(b.Reshape(moved, folded))
	} else {
		y = b.Softmax(b.Reshape(moved, folded))
	}
	inv := make([]int, r)
	for i, p := range perm {
		inv[p] = i
	}
	return Transpose(b, b.Reshape(y, ms), inv...)
}

// Sparsemax is the Euclidean projection of x onto the simplex along
// axis: like softmax, but with exact zeros.
func Sparsemax(b Builder, x Value, axis int) Value {
	if missing(b, "Sparsemax", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	a, ok := axisOf(b, "Sparsemax", x, axis)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	n := x.Shape()[a]
	sorted := Flip(b, Sort(b, x, a), a) // descending
	cum := Cumsum(b, sorted, Axis(a))
	kShape := make(Shape, len(x.Shape()))
	for i := range kShape {
		kShape[i] = 1
	}
	kShape[a] = n
	ks := make([]float64, n)
	for i := range ks {
		ks[i] = float64(i + 1)
	}
	k := b.Constant(ks, kShape)
	// support: 1 + k·z_k > Σ_{j≤k} z_j
	support := b.StopGradient(b.Greater(b.Add(scalar(b, 1), b.Mul(k, sorted)), cum))
	kz := Sum(b, support, Axis(a), KeepDims())
	tau := b.Div(b.Sub(Sum(b, b.Mul(support, sorted), Axis(a), KeepDims()), scalar(b, 1)), kz)
	return b.Relu(b.Sub(x, tau))
}

// Normalize divides x by its norm of order (2 is Keras's default) along
// axis, a norm of 0 leaving x unchanged (as Keras's epsilon does).
func Normalize(b Builder, x Value, axis int, order float64) Value {
	n := Norm(b, x, Ord(order), Axis(axis), KeepDims())
	return b.Div(x, b.Maximum(n, scalar(b, 1e-12)))
}

// OneHot turns class indices into one-hot vectors of length numClasses
// along a new last axis.
func OneHot(b Builder, x Value, numClasses int) Value {
	if missing(b, "OneHot", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	if numClasses <= 0 {
		return failf(b, "OneHot", x.Shape(), "num_classes must be positive, got %d", numClasses)
	}
	if x.DType() != b.DType() {
		x = b.Cast(x)
	}
	return b.OneHot(b.StopGradient(x), numClasses)
}

// MultiHot turns rows of class indices (..., k) into multi-hot vectors
// (..., numClasses): 1 for each class present.
func MultiHot(b Builder, x Value, numClasses int) Value {
	if missing(b, "MultiHot", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	if len(x.Shape()) == 0 {
		return failf(b, "MultiHot", x.Shape(), "the input must have at least one axis")
	}
	hot := OneHot(b, x, numClasses)
	return Max(b, hot, Axis(len(x.Shape())-1))
}

// Moments returns the mean and the population variance of x over axes.
func Moments(b Builder, x Value, axes []int, keepDims bool) (mean, variance Value) {
	opts := []AxisOption{Axis(axes...)}
	if keepDims {
		opts = append(opts, KeepDims())
	}
	m := Mean(b, x, Axis(axes...), KeepDims())
	v := Mean(b, b.Square(b.Sub(x, m)), opts...)
	return Mean(b, x, opts...), v
}

// BatchNormalization normalises x with the given mean and variance along
// axis: (x-mean)/√(variance+epsilon)·scale + offset; mean, variance,
// offset and scale are 1-D (x's size along axis), offset and scale may be
// nil.
func BatchNormalization(b Builder, x, mean, variance Value, axis int, offset, scale Value, epsilon float64) Value {
	if missing(b, "BatchNormalization", []string{"x", "mean", "variance"}, x, mean, variance) {
		return b.Fail(nil, b.Err())
	}
	a, ok := axisOf(b, "BatchNormalization", x, axis)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	s := make(Shape, len(x.Shape()))
	for i := range s {
		s[i] = 1
	}
	s[a] = x.Shape()[a]
	shape := func(name string, v Value) Value {
		if v.Shape().Size() != s[a] {
			return failf(b, "BatchNormalization", x.Shape(), "%s of shape %v: want (%d), the size of axis %d of x %v", name, v.Shape(), s[a], a, x.Shape())
		}
		return b.Reshape(v, s)
	}
	y := b.Div(b.Sub(x, shape("mean", mean)), b.Sqrt(b.Add(shape("variance", variance), scalar(b, epsilon))))
	if scale != nil {
		y = b.Mul(y, shape("scale", scale))
	}
	if offset != nil {
		y = b.Add(y, shape("offset", offset))
	}
	return y
}

// LayerNormalization normalises x over its last axis with its own mean
// and variance, then scales by gamma and offsets by beta (each
// (features), or nil).
func LayerNormalization(b Builder, x, gamma, beta Value, epsilon float64) Value {
	if missing(b, "LayerNormalization", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	return b.LayerNormalize(x, gamma, beta, epsilon)
}

// RmsNormalization divides x by the root mean square of its last axis
// (plus epsilon) and multiplies by scale ((features), or nil).
func RmsNormalization(b Builder, x, scale Value, epsilon float64) Value {
	if missing(b, "RmsNormalization", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	ms := Mean(b, b.Square(x), Axis(-1), KeepDims())
	y := b.Mul(x, Rsqrt(b, b.Add(ms, scalar(b, epsilon))))
	if scale != nil {
		y = b.Mul(y, scale)
	}
	return y
}

// BinaryCrossentropy is -(t·log p + (1-t)·log(1-p)) elementwise, from
// probabilities (clipped to [ε, 1-ε], ε = 1e-7 as Keras) or, fromLogits,
// from logits computed stably.
func BinaryCrossentropy(b Builder, target, output Value, fromLogits bool) Value {
	if fromLogits {
		// max(x, 0) - x·t + log(1 + e^-|x|)
		return b.Add(b.Sub(b.Relu(output), b.Mul(output, target)), b.Log1p(b.Exp(b.Neg(b.Abs(output)))))
	}
	const eps = 1e-7
	p := Clip(b, output, eps, 1-eps)
	pos := b.Mul(target, b.Log(p))
	neg := b.Mul(b.Sub(scalar(b, 1), target), b.Log(b.Sub(scalar(b, 1), p)))
	return b.Neg(b.Add(pos, neg))
}

// CategoricalCrossentropy is -Σ t·log p along axis, from probabilities
// (renormalised to sum to 1 and clipped, as Keras) or from logits.
func CategoricalCrossentropy(b Builder, target, output Value, fromLogits bool, axis int) Value {
	if missing(b, "CategoricalCrossentropy", []string{"target", "output"}, target, output) {
		return b.Fail(nil, b.Err())
	}
	if !target.Shape().Equal(output.Shape()) {
		return failf(b, "CategoricalCrossentropy", output.Shape(), "target %v and output %v must have one shape", target.Shape(), output.Shape())
	}
	var logp Value
	if fromLogits {
		logp = LogSoftmax(b, output, axis)
	} else {
		p := b.Div(output, Sum(b, output, Axis(axis), KeepDims()))
		logp = b.Log(Clip(b, p, 1e-7, 1-1e-7))
	}
	return b.Neg(Sum(b, b.Mul(target, logp), Axis(axis)))
}

// SparseCategoricalCrossentropy is CategoricalCrossentropy with integer
// class targets (output's shape without axis).
func SparseCategoricalCrossentropy(b Builder, target, output Value, fromLogits bool, axis int) Value {
	if missing(b, "SparseCategoricalCrossentropy", []string{"target", "output"}, target, output) {
		return b.Fail(nil, b.Err())
	}
	a, ok := axisOf(b, "SparseCategoricalCrossentropy", output, axis)
	if !ok {
		return b.Fail(nil, b.Err())
	}
	t := target
	if ts := t.Shape(); len(ts) == len(output.Shape()) && ts[len(ts)-1] == 1 {
		t = b.Reshape(t, ts[:len(ts)-1])
	}
	hot := moveAxis(b, OneHot(b, t, output.Shape()[a]), len(t.Shape()), a)
	return CategoricalCrossentropy(b, hot, output, fromLogits, a)
}

// Psnr is the peak signal-to-noise ratio of x against y in decibels,
// 10·log10(maxVal²/mse).
func Psnr(b Builder, x, y Value, maxVal float64) Value {
	mse := Mean(b, b.Square(b.Sub(x, y)))
	return b.Sub(scalar(b, 20*math.Log10(maxVal)), b.Mul(Log10(b, mse), scalar(b, 10)))
}
