package keras

import (
	"fmt"
	"sort"
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

// perOutput is a compile argument (losses, loss weights, metrics) in one
// of Keras's forms. It is resolved into one value per output (resolve),
// written to compile_config in the form it was given (encode), and read
// back from it (decodePerOutput): the three places Keras's one/list/dict
// rules apply, written once.
type perOutput[T any] struct {
	form  outputForm
	all   T            // oneForAll
	list  []T          // byPosition
	named map[string]T // byName
}

// resolve returns one value per output (names in the model's order);
// outputs the argument does not give keep def. what names the argument
// and unit its entries in errors.
func (p perOutput[T]) resolve(what, unit string, names []string, def T) ([]T, error) {
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
func (p perOutput[T]) encode(names []string, vals []T, enc func(T) (any, error)) (any, error) {
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

// option returns p as CompileOptions takes it: the one value, the list
// ([]T) or the map (map[string]T), or nil when not given.
func (p perOutput[T]) option() any {
	switch p.form {
	case oneForAll:
		return p.all
	case byPosition:
		return p.list
	case byName:
		return p.named
	}
	return nil
}

// decodePerOutput reads a compile_config value: a JSON list is by
// position, a JSON object that is not itself a value (isValue) is by
// name, anything else (null aside) one value for every output; dec reads
// each value.
func decodePerOutput[T any](v any, isValue func(map[string]any) bool, dec func(any) (T, error)) (perOutput[T], error) {
	var p perOutput[T]
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
