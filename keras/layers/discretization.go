package layers

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Discretization buckets continuous values by BinBoundaries, like
// keras.layers.Discretization: a value x goes to bucket i when
// BinBoundaries[i-1] <= x < BinBoundaries[i] (len(BinBoundaries)+1
// buckets), output as the bucket's index ("int", the default) or encoded
// as CategoryEncoding encodes ("one_hot", "multi_hot", "count").
//
// Instead of BinBoundaries, give NumBins and compute the boundaries from
// data with keras.Adapt, as Keras's adapt does: approximate quantiles
// within Epsilon, by Keras's own summary algorithm. Adapt before the
// layer's model is compiled: the boundaries are part of the computation.
type Discretization struct {
	BinBoundaries []float64
	NumBins       int
	Epsilon       float64 // the quantiles' tolerance when adapting; 0 means Keras's 0.01
	OutputMode    string  // "int" (the default when empty), "one_hot", "multi_hot" or "count"
	Base
}

// ClassName returns "Discretization".
func (*Discretization) ClassName() string { return "Discretization" }

func (l *Discretization) mode() string {
	if l.OutputMode == "" {
		return "int"
	}
	return l.OutputMode
}

func (l *Discretization) epsilon() float64 {
	if l.Epsilon == 0 {
		return 0.01
	}
	return l.Epsilon
}

// Build checks the settings and gives the output shape.
func (l *Discretization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if err := checkCategoricalMode(l.mode(), true); err != nil {
		return nil, err
	}
	if l.BinBoundaries == nil {
		if l.NumBins < 1 {
			return nil, fmt.Errorf("give BinBoundaries, or NumBins (at least 1) and adapt the layer with keras.Adapt")
		}
		return nil, fmt.Errorf("the layer has no bin boundaries yet: adapt it with keras.Adapt before putting it in a model (or give BinBoundaries)")
	}
	if !slices.IsSorted(l.BinBoundaries) {
		return nil, fmt.Errorf("bin boundaries %v are not in increasing order", l.BinBoundaries)
	}
	return categoricalShape(in, l.mode(), len(l.BinBoundaries)+1)
}

// Call buckets: the index is the number of boundaries <= x.
func (l *Discretization) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, asFloat(ctx.B, in[0])
	s := x.Shape()
	n := len(l.BinBoundaries)
	var idx backend.Value
	if n == 0 {
		idx = b.Mul(x, b.Scalar(0))
	} else {
		shape := make(backend.Shape, len(s)+1)
		for i := range shape {
			shape[i] = 1
		}
		shape[len(s)] = n
		below := b.Greater(b.Constant(l.BinBoundaries, shape), b.Reshape(x, append(s.Clone(), 1)))
		idx = b.Sub(b.Scalar(float64(n)), b.Sum(below, len(s)))
	}
	return encodeCategorical(b, idx, l.mode(), n+1)
}

// HostOutputDType gives the host form of an "int" Discretization (bucket
// indices, Keras's int64), which a model runs on the host when a host
// layer reads it: a HashedCrossing of a discretized feature, as
// utils.FeatureSpace crosses them. The encoded modes have none.
func (l *Discretization) HostOutputDType(in []backend.DType) (backend.DType, error) {
	if l.mode() != "int" {
		return 0, fmt.Errorf("output_mode %q has no host form (only \"int\")", l.mode())
	}
	if len(in) != 1 || in[0] == backend.String {
		return 0, fmt.Errorf("Discretization takes one input of numbers")
	}
	return backend.Int64, nil
}

// HostCall buckets a batch on the host as Call does on the engine (in
// float32, as Keras's Bucketize compares): the index is the number of
// boundaries <= x.
func (l *Discretization) HostCall(in []backend.Array) (backend.Array, error) {
	if len(in) != 1 {
		return backend.Array{}, fmt.Errorf("Discretization takes one input, got %d", len(in))
	}
	xs, err := numbers(in[0], l)
	if err != nil {
		return backend.Array{}, err
	}
	bounds := make([]float32, len(l.BinBoundaries))
	for i, b := range l.BinBoundaries {
		bounds[i] = float32(b)
	}
	out := backend.Array{Shape: slices.Clone(in[0].Shape), Ints: make([]int32, len(xs))}
	for i, x := range xs {
		out.Ints[i] = int32(sort.Search(len(bounds), func(k int) bool { return bounds[k] > x }))
	}
	return out, nil
}

var _ HostComputable = (*Discretization)(nil)

// StartAdapt begins summarizing data for NumBins quantiles.
func (l *Discretization) StartAdapt(backend.Shape) (Adaptation, error) {
	if l.NumBins < 1 {
		return nil, fmt.Errorf("Discretization %q has no NumBins: set it to adapt the layer (a layer given BinBoundaries cannot be adapted)", l.Name)
	}
	return &discretizationAdaptation{l: l}, nil
}

// discretizationAdaptation is Keras's quantile summary: (values,
// weights) pairs, merged and compressed batch by batch in float32 as
// Keras's summarize, merge_summaries and compress_summary do.
type discretizationAdaptation struct {
	l       *Discretization
	values  []float32
	weights []float32
}

// Update merges one batch's summary.
func (a *discretizationAdaptation) Update(batch backend.Array) error {
	data, err := numbers(batch, a.l)
	if err != nil {
		return err
	}
	if len(data) == 0 {
		return nil
	}
	for _, v := range data {
		if math.IsNaN(float64(v)) {
			return fmt.Errorf("Discretization %q: the data holds NaN", a.l.Name)
		}
	}
	values, weights := summarize(data, a.l.epsilon())
	mv := append(slices.Clone(a.values), values...)
	mw := append(slices.Clone(a.weights), weights...)
	order := make([]int, len(mv))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return mv[order[i]] < mv[order[j]] })
	a.values, a.weights = make([]float32, len(mv)), make([]float32, len(mv))
	for i, o := range order {
		a.values[i], a.weights[i] = mv[o], mw[o]
	}
	a.values, a.weights = compressSummary(a.values, a.weights, a.l.epsilon())
	return nil
}

// Finish sets the boundaries: the summary compressed to NumBins bins,
// without the last.
func (a *discretizationAdaptation) Finish() error {
	if len(a.values) == 0 {
		return fmt.Errorf("Discretization %q was adapted on no values: give it data with at least one sample", a.l.Name)
	}
	values, _ := compressSummary(a.values, a.weights, 1/float64(a.l.NumBins))
	bounds := make([]float64, len(values)-1)
	for i := range bounds {
		bounds[i] = float64(values[i])
	}
	a.l.BinBoundaries = bounds
	return nil
}

// summarize is Keras's summarize: the sorted values taken every step
// (the count over 1/epsilon buckets, at least 1), each weighing step.
func summarize(data []float32, epsilon float64) ([]float32, []float32) {
	sorted := slices.Clone(data)
	slices.Sort(sorted)
	increment := float64(len(sorted)) / (1 / epsilon)
	step := math.Max(increment, 1)
	var values, weights []float32
	for i := int(step - 1); i < len(sorted); i += int(step) {
		values = append(values, sorted[i])
		weights = append(weights, float32(step))
	}
	return values, weights
}

// compressSummary is Keras's compress_summary: a summary of 1/epsilon
// bins interpolated from the cumulative weights, or the summary itself
// when it is already that small.
func compressSummary(values, weights []float32, epsilon float64) ([]float32, []float32) {
	if float64(len(values))*epsilon < 1 {
		return values, weights
	}
	n := int(math.Ceil(1 / epsilon))
	cum := make([]float32, len(weights))
	var total float32
	for i, w := range weights {
		total += w
		cum[i] = total
	}
	cumPercent := make([]float32, len(cum))
	for i, c := range cum {
		cumPercent[i] = c / total
	}
	newValues, newWeights := make([]float32, n), make([]float32, n)
	prev := 0.0
	for i := range n {
		p := epsilon + float64(i)*epsilon
		newValues[i] = float32(interp(p, cumPercent, values))
		c := interp(p, cumPercent, cum)
		newWeights[i] = float32(c - prev)
		prev = c
	}
	return newValues, newWeights
}

// interp is NumPy's interp: the piecewise-linear interpolation of (xp,
// fp) at x (xp increasing), constant beyond the ends.
func interp(x float64, xp, fp []float32) float64 {
	n := len(xp)
	switch {
	case x < float64(xp[0]):
		return float64(fp[0])
	case x > float64(xp[n-1]):
		return float64(fp[n-1])
	case x == float64(xp[n-1]):
		return float64(fp[n-1])
	}
	// j is the last index with xp[j] <= x.
	j := sort.Search(n, func(i int) bool { return float64(xp[i]) > x }) - 1
	if float64(xp[j]) == x {
		return float64(fp[j])
	}
	x0, x1, y0, y1 := float64(xp[j]), float64(xp[j+1]), float64(fp[j]), float64(fp[j+1])
	slope := (y1 - y0) / (x1 - x0)
	y := slope*(x-x0) + y0
	if math.IsNaN(y) {
		y = slope*(x-x1) + y1
		if math.IsNaN(y) && y0 == y1 {
			y = y0
		}
	}
	return y
}

// GetConfig returns Keras's config.
func (l *Discretization) GetConfig() (serialization.Config, error) {
	var numBins any
	if l.NumBins > 0 {
		numBins = l.NumBins
	}
	var bounds any
	if l.BinBoundaries != nil {
		bounds = l.BinBoundaries
	}
	return serialization.Config{"bin_boundaries": bounds, "num_bins": numBins, "epsilon": l.epsilon(),
		"output_mode": l.mode(), "sparse": false}, nil
}

func init() {
	mustRegister("Discretization", func(r *serialization.Reader) (Layer, error) {
		l := &Discretization{BinBoundaries: r.Floats("bin_boundaries"), NumBins: r.Int("num_bins", 0),
			Epsilon: r.Float("epsilon", 0.01), OutputMode: r.String("output_mode", "int")}
		r.Expect("sparse", false, "kerasgo's outputs are dense")
		return l, nil
	})
}

// withoutTrainableConfig: Keras's Discretization config has no "trainable" (its
// constructor refuses one).
func (*Discretization) withoutTrainableConfig() {}
