package keras

import (
	"fmt"
	"sort"
)

// ArraySet is the data Fit, Evaluate and Predict take for a model's inputs
// (x) or its targets (y): an Array for a model with one input (or
// output), Arrays by position, or NamedArrays by input (or output) layer
// name, like the NumPy array, list and dict Keras accepts.
type ArraySet interface {
	// arrays returns one Array per name, in the model's order; what is
	// "input" or "output", for errors.
	arrays(names []string, what string) ([]Array, error)
}

// Arrays holds one Array per model input (or output), in the model's
// order: keras.Arrays{images, metadata}.
type Arrays []Array

// NamedArrays holds one Array per model input (or output), keyed by the
// input (or output) layer's name: keras.NamedArrays{"title": t, "body": b}.
type NamedArrays map[string]Array

func (a Array) arrays(names []string, what string) ([]Array, error) {
	if len(names) != 1 {
		return nil, fmt.Errorf("the model has %d %ss %v but got one array: give keras.Arrays{...} with one array per %s, in this order, or keras.NamedArrays by name", len(names), what, names, what)
	}
	return []Array{a}, nil
}

func (a Arrays) arrays(names []string, what string) ([]Array, error) {
	if len(a) != len(names) {
		return nil, fmt.Errorf("the model has %d %ss %v but got %d arrays: give one per %s, in this order", len(names), what, names, len(a), what)
	}
	return a, nil
}

func (a NamedArrays) arrays(names []string, what string) ([]Array, error) {
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

// dataset is resolved host data: one Array per input, and one per output
// (nil for Predict); all have the same number of samples.
type dataset struct {
	x, y []Array
}

func (d dataset) samples() int { return d.x[0].Samples() }

// rows returns the samples [from, to) of every array, without copying.
func (d dataset) rows(from, to int) dataset {
	out := dataset{x: make([]Array, len(d.x))}
	for i, a := range d.x {
		out.x[i] = a.rows(from, to)
	}
	if d.y != nil {
		out.y = make([]Array, len(d.y))
		for i, a := range d.y {
			out.y[i] = a.rows(from, to)
		}
	}
	return out
}

// gatherer copies the samples of a batch out of a dataset into buffers
// it reuses from batch to batch.
type gatherer struct {
	bufs [][]float32
}

func (g *gatherer) gather(d dataset, idx []int) dataset {
	arrays := append(append([]Array(nil), d.x...), d.y...)
	if len(g.bufs) < len(arrays) {
		g.bufs = make([][]float32, len(arrays))
	}
	out := make([]Array, len(arrays))
	for i, a := range arrays {
		out[i], g.bufs[i] = a.gatherArray(idx, g.bufs[i])
	}
	res := dataset{x: out[:len(d.x)]}
	if d.y != nil {
		res.y = out[len(d.x):]
	}
	return res
}
