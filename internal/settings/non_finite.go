package settings

import (
	"math"
	"reflect"
)

// NonFinite returns the first exported float field of the struct v points
// to (or is), embedded structs included, that holds NaN or an infinity,
// with its value; found is false when every float field is finite.
func NonFinite(v any) (field string, value float64, found bool) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if rv.IsNil() {
			return "", 0, false
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return "", 0, false
	}
	return nonFinite(rv)
}

func nonFinite(rv reflect.Value) (string, float64, bool) {
	t := rv.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous { // an embedded struct's exported fields are promoted
			continue
		}
		fv := rv.Field(i)
		switch fv.Kind() {
		case reflect.Float32, reflect.Float64:
			if !f.IsExported() {
				continue
			}
			if x := fv.Float(); math.IsNaN(x) || math.IsInf(x, 0) {
				return f.Name, x, true
			}
		case reflect.Struct:
			if f.Anonymous {
				if name, x, ok := nonFinite(fv); ok {
					return name, x, true
				}
			}
		}
	}
	return "", 0, false
}
