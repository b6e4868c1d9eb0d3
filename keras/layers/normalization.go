package layers

import (
	"fmt"
	"math"
	"slices"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// normalizationEpsilon is Keras's backend.epsilon(), the smallest standard
// deviation Normalization divides by.
const normalizationEpsilon = 1e-7

// Normalization shifts and scales its input to zero mean and unit
// variance, (x - mean) / sqrt(variance), with a mean and variance per
// index of the Axis axes, like keras.layers.Normalization. The statistics
// are either given (Mean and Variance) or computed from data by
// keras.Adapt before training and kept in the layer's non-trainable
// weights "mean", "variance" and "count", which are saved with the model.
// Until it is adapted, an adaptable layer has mean 0 and variance 1.
type Normalization struct {
	// Axis lists the axes that keep their own mean and variance (Keras's
	// axis); nil means the last axis. The batch axis cannot be one.
	Axis []int
	// AxisNone is Keras's axis=None: one mean and variance for all values.
	AxisNone bool
	// Mean and Variance fix the statistics instead of adapting them
	// (give both or neither): one value for every index, or one per
	// index of the kept axes in row-major order.
	Mean, Variance []float64
	// Invert applies the inverse, mean + x * sqrt(variance): it turns
	// normalized values back into the data's scale.
	Invert bool
	Base

	// meanShape is the shape of Mean as a config gave it, kept to write
	// it back the same way; Keras aligns it with the kept axes from the
	// right.
	meanShape []int
	// Resolved by Build: the kept axes (sorted, non-negative), the shape
	// the statistics broadcast as, and the weights.
	keep                  []int
	broadcast             backend.Shape
	mean, variance, count *Weight
}

// ClassName returns "Normalization".
func (*Normalization) ClassName() string { return "Normalization" }

func (l *Normalization) axes() []int {
	switch {
	case l.AxisNone:
		return nil
	case l.Axis == nil:
		return []int{-1}
	}
	return l.Axis
}

// Build resolves the axes and creates the weights of an adaptable layer.
func (l *Normalization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if (l.Mean == nil) != (l.Variance == nil) {
		return nil, fmt.Errorf("give both Mean and Variance, or neither (to adapt them): got %d means and %d variances", len(l.Mean), len(l.Variance))
	}
	if len(l.Mean) != len(l.Variance) {
		return nil, fmt.Errorf("the mean has %d values and the variance %d: give the same number", len(l.Mean), len(l.Variance))
	}
	keep := []int{}
	for _, a := range l.axes() {
		d := a
		if d < 0 {
			d += len(in)
		}
		if d < 0 || d >= len(in) {
			return nil, fmt.Errorf("axis %d is outside an input of shape %v", a, in)
		}
		if d == 0 {
			return nil, fmt.Errorf("axis %d is the batch axis, whose length is not known: keep a feature axis (or set AxisNone for one mean and variance)", a)
		}
		if in[d] < 0 {
			return nil, fmt.Errorf("axis %d of the input %v has no fixed length: Normalization keeps statistics only along axes of known length", a, in)
		}
		if !slices.Contains(keep, d) {
			keep = append(keep, d)
		}
	}
	slices.Sort(keep)
	l.keep = keep
	l.broadcast = make(backend.Shape, len(in))
	stats := backend.Shape{}
	for d := range in {
		l.broadcast[d] = 1
		if slices.Contains(keep, d) {
			l.broadcast[d] = in[d]
			stats = append(stats, in[d])
		}
	}
	if l.Mean != nil {
		if _, err := l.fixed(l.Mean, stats); err != nil {
			return nil, fmt.Errorf("the mean: %w", err)
		}
		return in.Clone(), nil
	}
	if l.mean, err = l.AddWeight("mean", stats, initializers.Constant{}); err != nil {
		return nil, err
	}
	if l.variance, err = l.AddWeight("variance", stats, initializers.Constant{Value: 1}); err != nil {
		return nil, err
	}
	if l.count, err = l.AddWeight("count", backend.Shape{}, initializers.Constant{}); err != nil {
		return nil, err
	}
	l.mean.Trainable, l.variance.Trainable, l.count.Trainable = false, false, false
	l.count.Integer = true
	return in.Clone(), nil
}

// fixed broadcasts given statistics to the kept axes' shape stats, as
// Keras does: one value everywhere, or values whose shape (meanShape, or
// stats itself when not given) lines up with stats from the right.
func (l *Normalization) fixed(values []float64, stats backend.Shape) ([]float64, error) {
	n := stats.Size()
	switch {
	case len(values) == 1:
		return slices.Repeat(values, n), nil
	case l.meanShape == nil && len(values) == n:
		return values, nil
	case l.meanShape == nil:
		return nil, fmt.Errorf("%d values for kept axes of shape %v: give 1 or %d", len(values), stats, n)
	}
	s := l.meanShape
	if len(s) > len(stats) || !backend.Shape(stats[len(stats)-len(s):]).Equal(s) {
		return nil, fmt.Errorf("shape %v does not line up with the kept axes' shape %v", s, stats)
	}
	inner := backend.Shape(s).Size()
	out := make([]float64, n)
	for i := range out {
		out[i] = values[i%inner]
	}
	return out, nil
}

// Call normalizes (or, with Invert, denormalizes) x.
func (l *Normalization) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	var mean, variance backend.Value
	if l.Mean != nil {
		stats := backend.Shape{}
		for _, d := range l.keep {
			stats = append(stats, l.broadcast[d])
		}
		m, _ := l.fixed(l.Mean, stats)
		v, _ := l.fixed(l.Variance, stats)
		mean, variance = b.Constant(m, l.broadcast), b.Constant(v, l.broadcast)
	} else {
		mean, variance = b.Reshape(ctx.Weight(l.mean), l.broadcast), b.Reshape(ctx.Weight(l.variance), l.broadcast)
	}
	std := b.Maximum(b.Sqrt(variance), b.Scalar(normalizationEpsilon))
	if l.Invert {
		return b.Add(mean, b.Mul(in[0], std))
	}
	return b.Div(b.Sub(in[0], mean), std)
}

// StartAdapt builds the layer for samples of shape sample (if it is not
// built) and returns an accumulator of the mean and variance, combined
// batch by batch as Keras's adapt combines them.
func (l *Normalization) StartAdapt(sample backend.Shape) (Adaptation, error) {
	if l.Mean != nil {
		return nil, fmt.Errorf("Normalization %q was given its Mean and Variance: it cannot be adapted (leave them nil to adapt)", l.Name)
	}
	in := append(backend.Shape{-1}, sample...)
	if l.keep == nil {
		if _, err := l.Build([]backend.Shape{in}); err != nil {
			return nil, err
		}
	} else if len(in) != len(l.broadcast) {
		return nil, fmt.Errorf("Normalization %q was built for inputs of rank %d, the data's samples %v have rank %d", l.Name, len(l.broadcast), sample, len(in))
	}
	for _, d := range l.keep {
		if in[d] != l.broadcast[d] {
			return nil, fmt.Errorf("Normalization %q was built for inputs whose axis %d has length %d, the data's samples %v have %d", l.Name, d, l.broadcast[d], sample, in[d])
		}
	}
	n := l.mean.Shape.Size()
	return &normalizationAdaptation{l: l, mean: make([]float64, n), variance: make([]float64, n)}, nil
}

// normalizationAdaptation is Keras's running combination of batch means
// and variances (the lack-of-fit sum of squares), in float64.
type normalizationAdaptation struct {
	l              *Normalization
	mean, variance []float64
	count          int
}

// Update folds one batch's statistics into the running ones.
func (a *normalizationAdaptation) Update(data backend.Array) error {
	values, err := numbers(data, a.l)
	if err != nil {
		return err
	}
	s := backend.Shape(data.Shape)
	if len(s) != len(a.l.broadcast) {
		return fmt.Errorf("a batch of shape %v for Normalization %q, built for rank %d", s, a.l.Name, len(a.l.broadcast))
	}
	for _, d := range a.l.keep {
		if s[d] != a.l.broadcast[d] {
			return fmt.Errorf("a batch of shape %v for Normalization %q, whose axis %d has length %d", s, a.l.Name, d, a.l.broadcast[d])
		}
	}
	n := len(a.mean)
	batch := len(values) / n
	if batch == 0 {
		return nil
	}
	sum, sq := make([]float64, n), make([]float64, n)
	index := statIndex(s, a.l.keep)
	for i, v := range values {
		k := index(i)
		sum[k] += float64(v)
	}
	for k := range sum {
		sum[k] /= float64(batch)
	}
	for i, v := range values {
		k := index(i)
		dv := float64(v) - sum[k]
		sq[k] += dv * dv
	}
	a.count += batch
	w := float64(batch) / float64(a.count)
	for k := range a.mean {
		bm, bv := sum[k], sq[k]/float64(batch)
		m := a.mean[k]*(1-w) + bm*w
		a.variance[k] = (a.variance[k]+(a.mean[k]-m)*(a.mean[k]-m))*(1-w) + (bv+(bm-m)*(bm-m))*w
		a.mean[k] = m
	}
	return nil
}

// statIndex maps a flat index of a tensor of shape s to the flat index of
// its statistic over the kept axes.
func statIndex(s backend.Shape, keep []int) func(i int) int {
	strides := make([]int, len(s))
	step := 1
	for d := len(s) - 1; d >= 0; d-- {
		strides[d] = step
		step *= s[d]
	}
	return func(i int) int {
		k := 0
		for _, d := range keep {
			k = k*s[d] + i/strides[d]%s[d]
		}
		return k
	}
}

// Finish stores the statistics in the layer's weights.
func (a *normalizationAdaptation) Finish() error {
	if a.count == 0 {
		return fmt.Errorf("Normalization %q was adapted on no values: give it data with at least one sample", a.l.Name)
	}
	for k := range a.mean {
		if math.IsNaN(a.mean[k]) || math.IsInf(a.mean[k], 0) || math.IsNaN(a.variance[k]) || math.IsInf(a.variance[k], 0) {
			return fmt.Errorf("Normalization %q: the data's mean or variance is not finite (NaN or Inf in the data?)", a.l.Name)
		}
	}
	if err := a.l.mean.Assign(toFloat32(a.mean)); err != nil {
		return err
	}
	if err := a.l.variance.Assign(toFloat32(a.variance)); err != nil {
		return err
	}
	return a.l.count.Assign([]float32{float32(a.count)})
}

func toFloat32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// GetConfig returns Keras's config.
func (l *Normalization) GetConfig() (serialization.Config, error) {
	axis := []int{}
	if !l.AxisNone {
		axis = l.axes()
	}
	cfg := serialization.Config{"axis": axis, "invert": l.Invert, "mean": nil, "variance": nil}
	if l.Mean != nil {
		s := l.meanShape
		switch {
		case s != nil:
		case len(l.Mean) == 1:
			s = []int{}
		default:
			s = []int{len(l.Mean)}
			if l.keep != nil {
				s = s[:0]
				for _, d := range l.keep {
					s = append(s, l.broadcast[d])
				}
			}
		}
		if backend.Shape(s).Size() != len(l.Mean) || len(l.Variance) != len(l.Mean) {
			return nil, fmt.Errorf("Normalization %q: Mean has %d values and Variance %d, for statistics of shape %v", l.Name, len(l.Mean), len(l.Variance), s)
		}
		cfg["mean"], cfg["variance"] = serialization.NestedList(l.Mean, s), serialization.NestedList(l.Variance, s)
	}
	return cfg, nil
}

func init() {
	mustRegister("Normalization", func(r *serialization.Reader) (Layer, error) {
		l := &Normalization{Invert: r.Bool("invert", false)}
		switch {
		case r.IsNull("axis"):
			r.Ignore("axis")
			l.AxisNone = true
		case r.Has("axis"):
			axes, shape := r.Numbers("axis")
			if len(shape) > 1 {
				r.Fail("axis", "want an integer or a list of integers, got %v", axes)
			}
			if len(axes) == 0 {
				l.AxisNone = true // Keras's axis=None, saved as ()
			}
			for _, a := range axes {
				if a != math.Trunc(a) {
					r.Fail("axis", "want integers, got %v", axes)
				}
				l.Axis = append(l.Axis, int(a))
			}
		}
		mean, meanShape := r.Numbers("mean")
		variance, varianceShape := r.Numbers("variance")
		if fmt.Sprint(meanShape) != fmt.Sprint(varianceShape) {
			r.Fail("variance", "shape %v differs from the mean's %v", varianceShape, meanShape)
		}
		l.Mean, l.Variance, l.meanShape = mean, variance, meanShape
		return l, nil
	})
}
