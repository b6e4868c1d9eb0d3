package settings

import "reflect"

// IsNil reports whether v is nil or an interface holding a nil pointer
// (a typed nil, such as a *layers.Dense declared but never made): calling
// its methods would panic deep inside kerasgo, so callers refuse it first.
func IsNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return rv.IsNil()
	}
	return false
}
