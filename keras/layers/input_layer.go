package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// InputLayer is the source of a model's input (see Input). Shape excludes
// the batch dimension.
type InputLayer struct {
	Shape []int
	// DType is Keras's input dtype: "" or "float32", or "int32"/"int64"
	// for token ids (IntInput). kerasgo carries ids as float32, which
	// holds every integer below 2^24 exactly; Embedding checks them.
	DType string
	Base
}

// IntInput returns a model input of integer token ids, like
// keras.Input(shape, dtype="int32"); saved models record the dtype, and
// Keras models with int inputs load. The ids travel as float32 (exact
// below 2^24; Embedding's InputDim is capped there).
func IntInput(shape ...int) *KerasTensor {
	t := Input(shape...)
	t.layer.(*InputLayer).DType = "int32"
	return t
}

// KerasDType returns the input's Keras dtype name ("float32" by default).
func (l *InputLayer) KerasDType() string {
	if l.DType == "" {
		return "float32"
	}
	return l.DType
}

// ClassName returns "InputLayer".
func (l *InputLayer) ClassName() string { return "InputLayer" }

// Build returns (None, Shape...).
func (l *InputLayer) Build([]backend.Shape) (backend.Shape, error) {
	if len(l.Shape) == 0 {
		return nil, fmt.Errorf("an Input needs a shape, e.g. Input(28, 28, 1)")
	}
	switch l.DType {
	case "", "float32", "int32", "int64":
	default:
		return nil, fmt.Errorf("input dtype %q is not supported: use float32, or int32 for token ids", l.DType)
	}
	for _, d := range l.Shape {
		if d == 0 || d < -1 {
			return nil, fmt.Errorf("input shape %v has a dimension that is neither positive nor -1 (any length)", l.Shape)
		}
	}
	return append(backend.Shape{-1}, l.Shape...), nil
}

// Call returns the input unchanged.
func (l *InputLayer) Call(_ *Context, in []backend.Value) backend.Value { return in[0] }
