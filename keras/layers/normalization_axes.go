package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// normalizationAxes resolves the axes a normalisation layer (UnitNormalization,
// RMSNormalization) works over, for an input of shape in: nil is Keras's
// default, the last axis; negative axes count from the end; the batch axis
// cannot be one.
func normalizationAxes(layer string, axes []int, in backend.Shape) ([]int, error) {
	if len(axes) == 0 {
		axes = []int{-1}
	}
	out, err := backend.NormalizeAxes(len(in), axes)
	if err != nil {
		return nil, fmt.Errorf("%s: axis %v does not fit the input %v: %v", layer, axes, in, err)
	}
	for _, a := range out {
		if a == 0 {
			return nil, fmt.Errorf("%s: axis %v includes the batch axis of the input %v: normalise over the axes of one sample (1 to %d)", layer, axes, in, len(in)-1)
		}
		if in[a] < 0 {
			return nil, fmt.Errorf("%s: axis %d of the input %v has no fixed length", layer, a, in)
		}
	}
	return out, nil
}

// axesConfig is an axis list as Keras's config holds it: one integer for
// a single axis given as one, else the list.
func axesConfig(axes []int, asList bool) any {
	if len(axes) == 0 {
		return -1
	}
	if len(axes) == 1 && !asList {
		return axes[0]
	}
	list := make([]any, len(axes))
	for i, a := range axes {
		list[i] = a
	}
	return list
}

// readAxes reads an axis setting: one integer or a list (negative ones
// count from the end); asList says it was a list.
func readAxes(r *serialization.Reader, key string) (axes []int, asList bool) {
	v, ok := r.Value(key)
	if !ok || v == nil {
		return nil, false
	}
	list, isList := v.([]any)
	if !isList {
		list = []any{v}
	}
	for _, e := range list {
		f, isNum := e.(float64)
		if !isNum || f != float64(int(f)) {
			r.Fail(key, "want an integer or a list of integers, got %v", v)
			return nil, false
		}
		axes = append(axes, int(f))
	}
	return axes, isList
}
