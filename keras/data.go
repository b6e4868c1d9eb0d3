package keras

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/losses"
)

// ArraySet is the data Fit, Evaluate and Predict take for a model's inputs
// (x) or its targets (y): an Array for a model with one input (or
// output), Arrays by position, or NamedArrays by input (or output) layer
// name, like the NumPy array, list and dict Keras accepts. As x, Fit,
// Evaluate and Predict also take Batches: whole batches from a Dataset or
// a generator, with y nil.
type ArraySet interface {
	// ForNames returns one Array per name (the model's inputs or
	// outputs), in the order of names; what ("input", "output") names
	// them in errors.
	ForNames(names []string, what string) ([]Array, error)
}

// Arrays holds one Array per model input (or output), in the model's
// order: keras.Arrays{images, metadata}.
type Arrays []Array

// NamedArrays holds one Array per model input (or output), keyed by the
// input (or output) layer's name: keras.NamedArrays{"title": t, "body": b}.
type NamedArrays map[string]Array

// ForNames returns the arrays, one per name in order, or an error when
// their count is not the names'. The slice is a copy: the caller's stays
// as it was when Fit converts an array to its input's dtype.
func (a Arrays) ForNames(names []string, what string) ([]Array, error) {
	if len(a) != len(names) {
		return nil, fmt.Errorf("the model has %d %ss %v but got %d arrays: give one per %s, in this order", len(names), what, names, len(a), what)
	}
	return slices.Clone([]Array(a)), nil
}

// ForNames returns the array of each name, in order, or an error naming a
// missing or unknown name.
func (a NamedArrays) ForNames(names []string, what string) ([]Array, error) {
	out := make([]Array, len(names))
	known := map[string]bool{}
	for i, n := range names {
		v, ok := a[n]
		if !ok {
			return nil, fmt.Errorf("no array for %s %q: the model's %ss are %v", what, n, what, names)
		}
		out[i], known[n] = v, true
	}
	var extra []string
	for k := range a {
		if !known[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return nil, fmt.Errorf("arrays for unknown %ss %v: the model's %ss are %v", what, extra, what, names)
	}
	return out, nil
}

// hostData is resolved host data: one Array per input, one per output
// (nil for Predict), and one array of sample weights (shape (samples,), or
// (samples, steps) for a sequence output)
// per output when the losses are weighted; all have the same number of
// samples.
type hostData struct {
	x, y, sw []Array
}

func (d hostData) samples() int { return d.x[0].Samples() }

// rows returns the samples [from, to) of every array, without copying.
func (d hostData) rows(from, to int) hostData {
	out := hostData{x: make([]Array, len(d.x))}
	for i, a := range d.x {
		out.x[i] = a.Rows(from, to)
	}
	if d.y != nil {
		out.y = make([]Array, len(d.y))
		for i, a := range d.y {
			out.y[i] = a.Rows(from, to)
		}
	}
	if d.sw != nil {
		out.sw = make([]Array, len(d.sw))
		for i, a := range d.sw {
			out.sw[i] = a.Rows(from, to)
		}
	}
	return out
}

// gatherer copies the samples of a batch out of a dataset into buffers
// it reuses from batch to batch.
type gatherer struct {
	bufs  [][]float32
	ibufs [][]int32
}

func (g *gatherer) gather(d hostData, idx []int) hostData {
	arrays := append(append(append([]Array(nil), d.x...), d.y...), d.sw...)
	if len(g.bufs) < len(arrays) {
		g.bufs, g.ibufs = make([][]float32, len(arrays)), make([][]int32, len(arrays))
	}
	out := make([]Array, len(arrays))
	for i, a := range arrays {
		out[i], g.bufs[i], g.ibufs[i] = a.TakeInto(idx, g.bufs[i], g.ibufs[i])
	}
	nx, ny := len(d.x), len(d.y)
	res := hostData{x: out[:nx]}
	if d.y != nil {
		res.y = out[nx : nx+ny]
	}
	if d.sw != nil {
		res.sw = out[nx+ny:]
	}
	return res
}

// checkClassWeight refuses class weights that cannot be meant: a class
// the output does not have (a negative one, or one past its units; a
// one-unit output has the classes 0 and 1) and a weight that is negative
// or not finite. Keras's array path ignores such classes silently; its
// tf.data path refuses keys other than 0..n-1.
func checkClassWeight(cw map[int]float64, out backend.Shape) error {
	classes := 2
	if k := out[len(out)-1]; k > 1 {
		classes = k
	}
	keys := make([]int, 0, len(cw))
	for k := range cw {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		if k < 0 || k >= classes {
			return fmt.Errorf("ClassWeight has class %d, but the output has the classes 0 to %d: give weights for those classes only", k, classes-1)
		}
		if v := cw[k]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("ClassWeight for class %d is %v: give a finite weight >= 0", k, v)
		}
	}
	return nil
}

// sampleWeights resolves Fit's or Evaluate's sample and class weights into
// one weight per sample and output (nil when neither is given), as Keras
// does: class weights apply to a model with one output, looked up by each
// sample's class (its index, the argmax of a one-hot target, or a 0/1
// target rounded), 1 for classes not listed.
func (m *Model) sampleWeights(c *compiled, d hostData, sampleWeight ArraySet, classWeight map[int]float64) ([]Array, error) {
	if sampleWeight == nil && classWeight == nil {
		return nil, nil
	}
	if sampleWeight != nil && classWeight != nil {
		return nil, fmt.Errorf("give SampleWeight or ClassWeight, not both (as in Keras)")
	}
	n := d.samples()
	if classWeight != nil {
		if len(m.outputs) != 1 {
			return nil, fmt.Errorf("ClassWeight applies to models with one output, as in Keras; this model has %d %v: give SampleWeight per output instead", len(m.outputs), m.OutputNames())
		}
		y := d.y[0]
		per := y.SampleSize()
		if err := checkClassWeight(classWeight, m.outputs[0].Shape()); err != nil {
			return nil, err
		}
		w := make([]float32, n)
		for i := range w {
			row := y.Data[i*per : (i+1)*per]
			class := 0
			if per > 1 {
				for j, v := range row {
					if v > row[class] {
						class = j
					}
				}
			} else {
				class = int(math.Round(float64(row[0])))
			}
			cw, ok := classWeight[class]
			if !ok {
				cw = 1
			}
			w[i] = float32(cw)
		}
		return []Array{{Shape: []int{n}, Data: w}}, checkWeightable(c)
	}
	sws, err := sampleWeight.ForNames(m.OutputNames(), "output")
	if err != nil {
		return nil, fmt.Errorf("SampleWeight: %w", err)
	}
	out := make([]Array, len(sws))
	for i, a := range sws {
		if err := a.Validate("SampleWeight"); err != nil {
			return nil, err
		}
		if a, err = asFloats(a, "SampleWeight"); err != nil {
			return nil, err
		}
		if err := checkWeightShape(a.Shape, n, m.outputs[i].Shape()); err != nil {
			return nil, err
		}
		for j, v := range a.Data {
			if !(v >= 0) || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("SampleWeight[%d] = %v: weights must be finite and >= 0", j, v)
			}
		}
		out[i] = a
	}
	return out, checkWeightable(c)
}

// checkWeightShape checks sample weights of shape ws for n samples of an
// output of shape out: one weight per sample (n,), or Keras's temporal
// weights, one per sample and step (n, steps) for a sequence output
// (n, steps, ...), whose axes after the batch's follow the output's.
func checkWeightShape(ws []int, n int, out backend.Shape) error {
	if len(ws) == 0 || ws[0] != n {
		return fmt.Errorf("SampleWeight has shape %v: give one weight per sample, shape (%d,), or per sample and step, shape (%d, steps)", backend.Shape(ws), n, n)
	}
	if len(ws) == 1 {
		return nil
	}
	if len(ws) >= len(out) && !(len(ws) == len(out) && ws[len(ws)-1] == 1) {
		return fmt.Errorf("SampleWeight has shape %v, as many axes as the output %v: give one weight per sample, shape (%d,), or per sample and step, shape (%d, steps)", backend.Shape(ws), out, n, n)
	}
	for k := 1; k < len(ws) && k < len(out)-1; k++ {
		if ws[k] != out[k] && out[k] != -1 {
			return fmt.Errorf("SampleWeight has shape %v, which does not follow the output's shape %v: axis %d has %d weights for %d values", backend.Shape(ws), out, k, ws[k], out[k])
		}
	}
	return nil
}

// checkWeightable reports a loss that cannot take sample weights.
func checkWeightable(c *compiled) error {
	for _, h := range c.heads {
		if _, ok := h.loss.(losses.Weighted); h.loss != nil && !ok {
			return fmt.Errorf("output %q's loss %s gives no per-sample values (a plain function returns the batch's loss), so it cannot be weighted: use a built-in loss or drop the weights", h.name, h.loss.Name())
		}
	}
	return nil
}

// shapes describes the shapes of d's arrays, to key a custom step's
// compiled executables (its data need not match the model's inputs).
func (d hostData) shapes() string {
	var sb strings.Builder
	for _, group := range [][]Array{d.x, d.y, d.sw} {
		for _, a := range group {
			fmt.Fprint(&sb, a.Shape, a.DType())
		}
		sb.WriteByte('|')
	}
	return sb.String()
}
