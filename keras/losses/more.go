package losses

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// The rest of Keras 3's losses (keras/src/losses/losses.py), each averaged
// over the last axis per sample, then over the batch (Keras's
// "sum_over_batch_size").

// perSample is a loss defined by its per-sample values (batch,), averaged
// over the batch, with targets shaped like the output.
type perSample struct {
	name string
	f    func(b backend.Builder, y, p backend.Value, last int) backend.Value
}

// Name returns Keras's name.
func (l perSample) Name() string { return l.name }

// Compute averages the per-sample values over the batch.
func (l perSample) Compute(b backend.Builder, y, p backend.Value) backend.Value {
	return b.Mean(l.Unreduced(b, y, p))
}

// Unreduced implements Weighted.
func (l perSample) Unreduced(b backend.Builder, y, p backend.Value) backend.Value {
	return l.f(b, y, p, len(p.Shape())-1)
}

// CheckTargets wants targets shaped like the output.
func (perSample) CheckTargets(_ []float32, ys, ps backend.Shape) error { return sameShape(ys, ps) }

// keepLast reshapes a per-sample value (one value per row) back to a
// column that broadcasts against the rows.
func keepLast(b backend.Builder, v backend.Value) backend.Value {
	return b.Reshape(v, append(v.Shape().Clone(), 1))
}

// epsilon is Keras's backend.epsilon().
const epsilon = 1e-7

// MeanAbsolutePercentageError is 100 * mean(|y - p| / max(|y|, eps)),
// keras.losses.MeanAbsolutePercentageError ("mape").
func MeanAbsolutePercentageError() Loss {
	return perSample{"mean_absolute_percentage_error", func(b backend.Builder, y, p backend.Value, last int) backend.Value {
		d := b.Div(abs(b, b.Sub(y, p)), b.Maximum(abs(b, y), b.Scalar(epsilon)))
		return b.Mul(b.Mean(d, last), b.Scalar(100))
	}}
}

// MeanSquaredLogarithmicError is mean((log(max(p, eps) + 1) - log(max(y,
// eps) + 1))²), keras.losses.MeanSquaredLogarithmicError ("msle").
func MeanSquaredLogarithmicError() Loss {
	return perSample{"mean_squared_logarithmic_error", func(b backend.Builder, y, p backend.Value, last int) backend.Value {
		lp := b.Log(b.Add(b.Maximum(p, b.Scalar(epsilon)), b.Scalar(1)))
		ly := b.Log(b.Add(b.Maximum(y, b.Scalar(epsilon)), b.Scalar(1)))
		return b.Mean(b.Square(b.Sub(lp, ly)), last)
	}}
}

// LogCosh is mean(log(cosh(p - y))), computed as x + softplus(-2x) -
// log 2, keras.losses.LogCosh.
func LogCosh() Loss {
	return perSample{"log_cosh", func(b backend.Builder, y, p backend.Value, last int) backend.Value {
		x := b.Sub(p, y)
		return b.Mean(b.Sub(b.Add(x, softplus(b, b.Mul(x, b.Scalar(-2)))), b.Scalar(math.Ln2)), last)
	}}
}

// KLDivergence is sum(y * log(y / p)) with both clipped to [eps, 1],
// keras.losses.KLDivergence.
func KLDivergence() Loss {
	return perSample{"kl_divergence", func(b backend.Builder, y, p backend.Value, last int) backend.Value {
		yc := b.Minimum(b.Maximum(y, b.Scalar(epsilon)), b.Scalar(1))
		pc := b.Minimum(b.Maximum(p, b.Scalar(epsilon)), b.Scalar(1))
		return b.Sum(b.Mul(yc, b.Log(b.Div(yc, pc))), last)
	}}
}

// Poisson is mean(p - y * log(p + eps)), keras.losses.Poisson.
func Poisson() Loss {
	return perSample{"poisson", func(b backend.Builder, y, p backend.Value, last int) backend.Value {
		return b.Mean(b.Sub(p, b.Mul(y, b.Log(b.Add(p, b.Scalar(epsilon))))), last)
	}}
}

// hingeLabels turns 0/1 targets into -1/1, as Keras does when every
// target of the batch is 0 or 1; other targets are used as they are.
func hingeLabels(b backend.Builder, y backend.Value) backend.Value {
	s := y.Shape()
	zeros, ones := b.Constant(make([]float64, s.Size()), s), b.Constant(filled(1, s.Size()), s)
	binary := b.Add(b.Equal(y, zeros), b.Equal(y, ones))
	all := b.Greater(b.Sum(binary), b.Scalar(float64(s.Size())-0.5)) // 1 when every target is 0 or 1
	converted := b.Sub(b.Mul(y, b.Scalar(2)), b.Scalar(1))
	return b.Add(b.Mul(converted, all), b.Mul(y, b.Sub(b.Scalar(1), all)))
}

func filled(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// Hinge is mean(max(1 - y*p, 0)) with -1/1 targets (0/1 converted),
// keras.losses.Hinge.
func Hinge() Loss {
	return perSample{"hinge", func(b backend.Builder, y, p backend.Value, last int) backend.Value {
		return b.Mean(b.Relu(b.Sub(b.Scalar(1), b.Mul(hingeLabels(b, y), p))), last)
	}}
}

// SquaredHinge is mean(max(1 - y*p, 0)²), keras.losses.SquaredHinge.
func SquaredHinge() Loss {
	return perSample{"squared_hinge", func(b backend.Builder, y, p backend.Value, last int) backend.Value {
		return b.Mean(b.Square(b.Relu(b.Sub(b.Scalar(1), b.Mul(hingeLabels(b, y), p)))), last)
	}}
}

// CategoricalHinge is max(neg - pos + 1, 0) with pos = sum(y*p) and neg =
// max((1-y)*p) over the last axis, keras.losses.CategoricalHinge.
func CategoricalHinge() Loss {
	return perSample{"categorical_hinge", func(b backend.Builder, y, p backend.Value, last int) backend.Value {
		pos := b.Sum(b.Mul(y, p), last)
		neg := maxLast(b, b.Mul(b.Sub(b.Scalar(1), y), p))
		return b.Relu(b.Add(b.Sub(neg, pos), b.Scalar(1)))
	}}
}

// maxLast is the maximum over the last axis, folded from slices (the op
// set has no reducing maximum).
func maxLast(b backend.Builder, x backend.Value) backend.Value {
	s := x.Shape()
	k := len(s) - 1
	size := s.Clone()
	size[k] = 1
	begin := make([]int, len(s))
	var out backend.Value
	for i := 0; i < s[k]; i++ {
		begin[k] = i
		col := b.Slice(x, begin, size)
		if out == nil {
			out = col
		} else {
			out = b.Maximum(out, col)
		}
	}
	return b.Reshape(out, s[:k].Clone())
}

// CosineSimilarity is -sum(normalize(y) * normalize(p)) over the last
// axis, keras.losses.CosineSimilarity (-1 for vectors pointing the same
// way).
func CosineSimilarity() Loss {
	return perSample{"cosine_similarity", func(b backend.Builder, y, p backend.Value, last int) backend.Value {
		norm := func(x backend.Value) backend.Value {
			ss := keepLast(b, b.Sum(b.Square(x), last))
			return b.Div(x, b.Sqrt(b.Maximum(ss, b.Scalar(1e-12))))
		}
		return b.Neg(b.Sum(b.Mul(norm(y), norm(p)), last))
	}}
}

// softplus is log(1 + exp(x)), overflow-free.
func softplus(b backend.Builder, x backend.Value) backend.Value {
	return b.Add(b.Relu(x), b.Log(b.Add(b.Scalar(1), b.Exp(b.Neg(abs(b, x))))))
}

// pow is x^g for x >= 0: repeated products for small whole g (exact at 0,
// with a finite gradient), else exp(g*log(x)).
func pow(b backend.Builder, x backend.Value, g float64) backend.Value {
	if g == math.Trunc(g) && g >= 0 && g <= 8 {
		out := b.Add(b.Mul(x, b.Scalar(0)), b.Scalar(1))
		for i := 0; i < int(g); i++ {
			out = b.Mul(out, x)
		}
		return out
	}
	return b.Exp(b.Mul(b.Log(b.Maximum(x, b.Scalar(1e-30))), b.Scalar(g)))
}

// CategoricalFocalCrossentropy is keras.losses.CategoricalFocalCrossentropy:
// crossentropy on one-hot targets, each class's term weighted by
// Alpha*(1-p)^Gamma to focus on hard examples.
type CategoricalFocalCrossentropy struct {
	Alpha          float64 // default 0.25
	Gamma          float64 // default 2
	FromLogits     bool
	LabelSmoothing float64
}

// Name returns "categorical_focal_crossentropy".
func (CategoricalFocalCrossentropy) Name() string { return "categorical_focal_crossentropy" }

func (l CategoricalFocalCrossentropy) params() (alpha, gamma float64) {
	alpha, gamma = l.Alpha, l.Gamma
	if alpha == 0 {
		alpha = 0.25
	}
	if gamma == 0 {
		gamma = 2
	}
	return alpha, gamma
}

// Compute implements Loss, as Keras 3's categorical_focal_crossentropy.
func (l CategoricalFocalCrossentropy) Compute(b backend.Builder, y, p backend.Value) backend.Value {
	return b.Mean(l.Unreduced(b, y, p))
}

// Unreduced implements Weighted.
func (l CategoricalFocalCrossentropy) Unreduced(b backend.Builder, y, p backend.Value) backend.Value {
	alpha, gamma := l.params()
	last := len(p.Shape()) - 1
	y = smoothCategorical(b, y, l.LabelSmoothing)
	if l.FromLogits {
		p = b.Softmax(p)
	}
	out := clip(b, b.Div(p, keepLast(b, b.Sum(p, last))))
	cce := b.Neg(b.Mul(y, b.Log(out)))
	weight := b.Mul(pow(b, b.Sub(b.Scalar(1), out), gamma), b.Scalar(alpha))
	return b.Sum(b.Mul(weight, cce), last)
}

// CheckTargets wants one-hot targets shaped like the output.
func (l CategoricalFocalCrossentropy) CheckTargets(y []float32, ys, ps backend.Shape) error {
	return CategoricalCrossentropy{}.CheckTargets(y, ys, ps)
}

// BinaryFocalCrossentropy is keras.losses.BinaryFocalCrossentropy: binary
// crossentropy weighted by (1 - p_t)^Gamma, and with ApplyClassBalancing
// by Alpha for positives and 1 - Alpha for negatives.
type BinaryFocalCrossentropy struct {
	ApplyClassBalancing bool
	Alpha               float64 // default 0.25
	Gamma               float64 // default 2
	FromLogits          bool
	LabelSmoothing      float64
}

// Name returns "binary_focal_crossentropy".
func (BinaryFocalCrossentropy) Name() string { return "binary_focal_crossentropy" }

// Compute implements Loss, as Keras 3's binary_focal_crossentropy.
func (l BinaryFocalCrossentropy) Compute(b backend.Builder, y, p backend.Value) backend.Value {
	return b.Mean(l.Unreduced(b, y, p))
}

// Unreduced implements Weighted.
func (l BinaryFocalCrossentropy) Unreduced(b backend.Builder, y, p backend.Value) backend.Value {
	alpha, gamma := CategoricalFocalCrossentropy{Alpha: l.Alpha, Gamma: l.Gamma}.params()
	last := len(p.Shape()) - 1
	y = smoothBinary(b, y, l.LabelSmoothing)
	bce := binaryCrossentropy(b, y, p, l.FromLogits)
	if l.FromLogits {
		p = b.Sigmoid(p)
	}
	one := b.Scalar(1)
	pt := b.Add(b.Mul(y, p), b.Mul(b.Sub(one, y), b.Sub(one, p)))
	focal := b.Mul(pow(b, b.Sub(one, pt), gamma), bce)
	if l.ApplyClassBalancing {
		w := b.Add(b.Mul(y, b.Scalar(alpha)), b.Mul(b.Sub(one, y), b.Scalar(1-alpha)))
		focal = b.Mul(w, focal)
	}
	return b.Mean(focal, last)
}

// CheckTargets wants targets in [0, 1] shaped like the output.
func (l BinaryFocalCrossentropy) CheckTargets(y []float32, ys, ps backend.Shape) error {
	return BinaryCrossentropy{}.CheckTargets(y, ys, ps)
}

// smoothCategorical is Keras's label smoothing for one-hot targets:
// y*(1 - s) + s/classes.
func smoothCategorical(b backend.Builder, y backend.Value, s float64) backend.Value {
	if s == 0 {
		return y
	}
	classes := float64(y.Shape()[len(y.Shape())-1])
	return b.Add(b.Mul(y, b.Scalar(1-s)), b.Scalar(s/classes))
}

// smoothBinary is Keras's label smoothing for 0/1 targets: y*(1 - s) +
// s/2.
func smoothBinary(b backend.Builder, y backend.Value, s float64) backend.Value {
	if s == 0 {
		return y
	}
	return b.Add(b.Mul(y, b.Scalar(1-s)), b.Scalar(s/2))
}

// checkSmoothing reports a label smoothing outside [0, 1].
func checkSmoothing(s float64) error {
	if s < 0 || s > 1 {
		return fmt.Errorf("label smoothing must be in [0, 1], got %v", s)
	}
	return nil
}
