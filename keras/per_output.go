package keras

import (
	"fmt"
	"sort"

	"github.com/kerasgo/kerasgo/keras/losses"
	"github.com/kerasgo/kerasgo/keras/metrics"
)

// outputForm is how a compile argument gives values for a model's
// outputs, in Keras's three forms: one value for every output, a list by
// position, or a dict by output name.
type outputForm int

const (
	notGiven outputForm = iota
	oneForAll
	byPosition
	byName
)

// PerOutput is a compile argument given for a model's outputs
// (CompileOptions' Loss, LossWeights and Metrics) in one of Keras's three
// forms: one value for every output (ForAll, Keras's single value), one
// per output in the model's order (ByPosition, Keras's list), or by output
// name (ByName, Keras's dict; outputs it does not name get the default).
// The zero PerOutput is "not given". Loss, LossOf, Metrics and MetricsOf
// build the common forms from Keras's names.
//
// Compile resolves it into one value per output (resolve), saving writes
// it to compile_config in the form it was given (encode), and loading
// reads it back (decodePerOutput): the places Keras's rules apply, written
// once.
type PerOutput[T any] struct {
	form  outputForm
	all   T            // oneForAll
	list  []T          // byPosition
	named map[string]T // byName
	err   error        // a shortcut's error (an unknown name), which Compile returns
}

// ForAll gives one value for every output of the model: Keras's single
// value, e.g. loss="mse". Write the type when T is an interface, as in
// keras.ForAll[losses.Loss](losses.Huber{Delta: 2}).
func ForAll[T any](v T) PerOutput[T] { return PerOutput[T]{form: oneForAll, all: v} }

// ByPosition gives one value per output, in the order of the model's
// outputs (Keras's list form); the zero value of T (a nil loss, nil
// metrics) leaves that output out.
func ByPosition[T any](vs ...T) PerOutput[T] { return PerOutput[T]{form: byPosition, list: vs} }

// ByName gives values by output name (Keras's dict form); the outputs it
// does not name keep the default (no loss, weight 1, no metrics).
func ByName[T any](vs map[string]T) PerOutput[T] { return PerOutput[T]{form: byName, named: vs} }

// Given reports whether p holds a value in one of the three forms; the
// zero PerOutput does not.
func (p PerOutput[T]) Given() bool { return p.form != notGiven }

// Loss gives the loss of every output by its Keras name, e.g.
// keras.Loss("sparse_categorical_crossentropy") for Keras's
// loss="sparse_categorical_crossentropy" (see losses.Get for the names).
// Compile reports an unknown name, listing the known ones.
func Loss(name string) PerOutput[losses.Loss] {
	l, err := losses.Get(name)
	return PerOutput[losses.Loss]{form: oneForAll, all: l, err: err}
}

// LossOf gives one loss for every output, e.g.
// keras.LossOf(losses.SparseCategoricalCrossentropy{FromLogits: true});
// losses.FromFunc makes one of a function.
func LossOf(l losses.Loss) PerOutput[losses.Loss] { return ForAll(l) }

// Metrics gives the metrics of every output by their Keras names, e.g.
// keras.Metrics("accuracy") for Keras's metrics=["accuracy"]. Compile
// resolves each name for its output's shape, as Keras does ("accuracy"
// becomes binary, categorical or sparse categorical accuracy), and
// reports an unknown one.
func Metrics(names ...string) PerOutput[[]metrics.Metric] {
	ms := make([]metrics.Metric, len(names))
	for i, n := range names {
		ms[i] = metrics.Named(n)
	}
	return ForAll(ms)
}

// MetricsOf gives metrics for every output, e.g.
// keras.MetricsOf(&metrics.AUC{}, metrics.Named("accuracy"));
// metrics.FromFunc makes one of a function.
func MetricsOf(ms ...metrics.Metric) PerOutput[[]metrics.Metric] { return ForAll(ms) }

// resolve returns one value per output (names in the model's order);
// outputs the argument does not give keep def. what names the argument
// and unit its entries in errors.
func (p PerOutput[T]) resolve(what, unit string, names []string, def T) ([]T, error) {
	if p.err != nil {
		return nil, fmt.Errorf("%s: %w", what, p.err)
	}
	out := make([]T, len(names))
	for i := range out {
		out[i] = def
	}
	switch p.form {
	case oneForAll:
		for i := range out {
			out[i] = p.all
		}
	case byPosition:
		if len(p.list) != len(names) {
			return nil, fmt.Errorf("the %s list has %d %s but the model has %d outputs %v: give one per output, in this order, or a map by output name", what, len(p.list), unit, len(names), names)
		}
		copy(out, p.list)
	case byName:
		index := map[string]int{}
		for i, n := range names {
			index[n] = i
		}
		keys := make([]string, 0, len(p.named))
		for k := range p.named {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			i, ok := index[k]
			if !ok {
				return nil, fmt.Errorf("%s names output %q, but the model's outputs are %v", what, k, names)
			}
			out[i] = p.named[k]
		}
	}
	return out, nil
}

// encode writes per-output values vals (one per output, names in the
// model's order) in p's form, each value encoded by enc, as Keras's
// compile_config holds them; oneForAll writes the first output's value.
func (p PerOutput[T]) encode(names []string, vals []T, enc func(T) (any, error)) (any, error) {
	switch p.form {
	case notGiven:
		return nil, nil
	case oneForAll:
		return enc(vals[0])
	case byPosition:
		list := make([]any, len(vals))
		for i, v := range vals {
			e, err := enc(v)
			if err != nil {
				return nil, err
			}
			list[i] = e
		}
		return list, nil
	}
	dict := map[string]any{}
	for i, v := range vals {
		e, err := enc(v)
		if err != nil {
			return nil, err
		}
		dict[names[i]] = e
	}
	return dict, nil
}

// decodePerOutput reads a compile_config value: a JSON list is by
// position, a JSON object that is not itself a value (isValue) is by
// name, anything else (null aside) one value for every output; dec reads
// each value.
func decodePerOutput[T any](v any, isValue func(map[string]any) bool, dec func(any) (T, error)) (PerOutput[T], error) {
	var p PerOutput[T]
	var err error
	switch e := v.(type) {
	case nil:
		return p, nil
	case []any:
		p.form, p.list = byPosition, make([]T, len(e))
		for i, x := range e {
			if p.list[i], err = dec(x); err != nil {
				return p, err
			}
		}
		return p, nil
	case map[string]any:
		if !isValue(e) {
			p.form, p.named = byName, map[string]T{}
			for k, x := range e {
				if p.named[k], err = dec(x); err != nil {
					return p, fmt.Errorf("for output %q: %w", k, err)
				}
			}
			return p, nil
		}
	}
	p.form = oneForAll
	p.all, err = dec(v)
	return p, err
}
