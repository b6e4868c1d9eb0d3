package layers

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unsafe"

	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Sublayer is a layer another layer holds, as Keras tracks a layer's
// attributes: its path is where Keras saves it under its parent (the
// attribute's name, and for a slice or a map the element's class in
// snake_case, numbered from the second on: "blocks/dense_1").
type Sublayer struct {
	Path  string
	Layer Layer
}

// Container is a layer that lists the layers it holds itself (a model, a
// Bidirectional) instead of having its fields read by Sublayers.
type Container interface {
	Layer
	Sublayers() []Sublayer
}

// Sublayers returns the layers l holds, as Keras tracks a layer's
// attributes: the fields of l's struct (exported or not) that hold a
// layer, or a slice, an array or a map (by sorted key) of layers, each
// once, in the fields' order (Keras's tracking order is the order
// __init__ assigns the attributes, which a struct declares; it orders
// layer.weights). A field's attribute name is its `keras:"name"` tag or
// its name in snake_case (Dense1: "dense1", projLayer: "proj_layer"). A
// Container lists its own.
func Sublayers(l Layer) []Sublayer {
	if c, ok := l.(Container); ok {
		return c.Sublayers()
	}
	v := reflect.ValueOf(l)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	type field struct {
		attr  string
		value reflect.Value
	}
	var fields []field
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type == baseType || (f.Anonymous && f.Type.Kind() == reflect.Interface) {
			continue // Base, and an embedded interface (a wrapper's own methods)
		}
		attr := f.Tag.Get("keras")
		if attr == "-" || !mayHoldLayer(f.Type) {
			continue
		}
		if attr == "" {
			attr = serialization.SnakeCase(f.Name)
			if !f.IsExported() {
				attr = strings.TrimPrefix(attr, "_")
			}
		}
		fv := v.Field(i)
		if !f.IsExported() {
			fv = reflect.NewAt(fv.Type(), unsafe.Pointer(fv.UnsafeAddr())).Elem()
		}
		fields = append(fields, field{attr, fv})
	}
	seen := map[Layer]bool{l: true}
	var out []Sublayer
	add := func(path string, x reflect.Value) {
		sub := layerIn(x)
		if sub == nil || seen[sub] {
			return
		}
		seen[sub] = true
		bindSelf(sub)
		out = append(out, Sublayer{Path: path, Layer: sub})
	}
	for _, f := range fields {
		switch f.value.Kind() {
		case reflect.Slice, reflect.Array:
			used := map[string]int{}
			for i := range f.value.Len() {
				if sub := layerIn(f.value.Index(i)); sub != nil {
					add(f.attr+"/"+serialization.UniqueName(serialization.SnakeCase(PythonClassName(sub)), used), f.value.Index(i))
				}
			}
		case reflect.Map:
			keys := f.value.MapKeys()
			sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
			used := map[string]int{}
			for _, k := range keys {
				if sub := layerIn(f.value.MapIndex(k)); sub != nil {
					add(f.attr+"/"+serialization.UniqueName(serialization.SnakeCase(PythonClassName(sub)), used), f.value.MapIndex(k))
				}
			}
		default:
			add(f.attr, f.value)
		}
	}
	return out
}

var (
	baseType  = reflect.TypeFor[Base]()
	layerType = reflect.TypeFor[Layer]()
)

// mayHoldLayer reports whether a field of type t can hold a layer, or
// layers: a type that implements Layer, an interface a layer satisfies
// (any, Layer, ...) or one that extends Layer, or a slice, array or map of
// such. Other fields (weights, initializers, shapes) are never read.
func mayHoldLayer(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface {
		return layerType.Implements(t) || t.Implements(layerType)
	}
	return t.Implements(layerType)
}

// layerIn returns the layer x holds, or nil.
func layerIn(x reflect.Value) Layer {
	switch x.Kind() {
	case reflect.Interface, reflect.Pointer:
		if x.IsNil() {
			return nil
		}
	default:
		return nil
	}
	l, ok := x.Interface().(Layer)
	if !ok {
		return nil
	}
	return l
}

// WeightsOf returns l's variables, as Keras's layer.weights: its own, then
// those of the layers it holds (Sublayers), depth first, each once.
func WeightsOf(l Layer) []*Weight {
	var out []*Weight
	seenW := map[*Weight]bool{}
	seenL := map[Layer]bool{}
	var walk func(l Layer)
	walk = func(l Layer) {
		if seenL[l] {
			return
		}
		seenL[l] = true
		for _, w := range l.Common().Weights() {
			if !seenW[w] {
				seenW[w] = true
				out = append(out, w)
			}
		}
		for _, s := range Sublayers(l) {
			walk(s.Layer)
		}
	}
	walk(l)
	return out
}
