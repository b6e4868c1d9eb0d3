package serialization

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
)

// Ordered is a JSON object whose keys keep the order they are written
// in (a Python dict's insertion order), for the configs where the order
// means something: a MultiOptimizer's map from variable paths to
// optimizers, whose order is that of the optimizers' saved state.
type Ordered struct {
	Keys   []string
	Values map[string]any
}

// KeyValue is one entry of an object.
type KeyValue struct {
	Key   string
	Value any
}

// NewOrdered returns the object of these entries, in their order.
func NewOrdered(entries []KeyValue) Ordered {
	o := Ordered{Values: make(map[string]any, len(entries))}
	for _, e := range entries {
		o.Keys = append(o.Keys, e.Key)
		o.Values[e.Key] = e.Value
	}
	return o
}

// MarshalJSON writes the object's entries in order.
func (o Ordered) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.Keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		val, err := json.Marshal(o.Values[k])
		if err != nil {
			return nil, err
		}
		buf.Write(key)
		buf.WriteByte(':')
		buf.Write(val)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Entries returns an object's entries: an Ordered's in its order, a
// decoded JSON object's (whose order is lost) sorted by key.
func Entries(v any) ([]KeyValue, error) {
	switch o := v.(type) {
	case Ordered:
		out := make([]KeyValue, len(o.Keys))
		for i, k := range o.Keys {
			out[i] = KeyValue{k, o.Values[k]}
		}
		return out, nil
	case map[string]any:
		keys := make([]string, 0, len(o))
		for k := range o {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make([]KeyValue, len(keys))
		for i, k := range keys {
			out[i] = KeyValue{k, o[k]}
		}
		return out, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("want an object, got %T", v)
}

// KeepKeyOrder makes each object in v (decoded from the JSON data, and
// changed in place) that
// is the value of a key named key, in an object that also has the key
// sibling, an Ordered with its keys in data's order. A MultiOptimizer's
// OptimizerMap is KeepKeyOrder(config, data, "optimizer_map",
// "default_optimizer").
func KeepKeyOrder(v any, data []byte, key, sibling string) error {
	orders, err := keyOrders(data, key)
	if err != nil {
		return err
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				x[k] = walk(val)
			}
			if inner, ok := x[key].(map[string]any); ok {
				if _, has := x[sibling]; has {
					for _, keys := range orders {
						if sameKeys(keys, inner) {
							x[key] = Ordered{Keys: keys, Values: inner}
							break
						}
					}
				}
			}
			return x
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		}
		return v
	}
	walk(v)
	return nil
}

// sameKeys reports whether keys are exactly m's keys.
func sameKeys(keys []string, m map[string]any) bool {
	if len(keys) != len(m) {
		return false
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// keyOrders returns the keys, in order, of each object in data that is
// the value of a key named key.
func keyOrders(data []byte, key string) ([][]string, error) {
	type frame struct {
		object, wantKey bool
		lastKey         string
		record          int // the object's entry in out, or -1
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []frame
	var out [][]string
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:n-1]
				valueDone()
				continue
			}
			k, _ := tok.(string)
			stack[n-1].lastKey, stack[n-1].wantKey = k, false
			if r := stack[n-1].record; r >= 0 {
				out[r] = append(out[r], k)
			}
			continue
		}
		switch tok {
		case json.Delim('{'):
			record := -1
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].lastKey == key {
				out = append(out, []string{})
				record = len(out) - 1
			}
			stack = append(stack, frame{object: true, wantKey: true, record: record})
		case json.Delim('['):
			stack = append(stack, frame{record: -1})
		case json.Delim(']'), json.Delim('}'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}
