package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// InputLayer is the source of a model's input (see Input). Shape excludes
// the batch dimension.
type InputLayer struct {
	Shape []int
	// DType is the input's dtype: backend.Float32 (the zero value),
	// backend.Int32 or backend.Int64 for token ids (IntInput), which
	// reach the engine as Int32, or backend.String (StringInput), which
	// only host layers take.
	DType backend.DType
	Base
}

// IntInput returns a model input of integer token ids, like
// keras.Input(shape, dtype="int32"); saved models record the dtype, and
// Keras models with int inputs load. The ids reach the engine as int32.
func IntInput(shape ...int) *KerasTensor {
	return NewInput(&InputLayer{Shape: shape, DType: backend.Int32})
}

// StringInput returns a model input of strings, like keras.Input(shape,
// dtype="string"): raw text for a TextVectorization layer, categories for
// a StringLookup or a Hashing. No shape is Keras's shape=(): one string
// per sample. Strings never reach the engine: only host layers (see
// HostLayer) take them, and the model feeds the engine their outputs.
func StringInput(shape ...int) *KerasTensor {
	return NewInput(&InputLayer{Shape: shape, DType: backend.String})
}

// ClassName returns "InputLayer".
func (l *InputLayer) ClassName() string { return "InputLayer" }

// Build returns (None, Shape...).
func (l *InputLayer) Build([]backend.Shape) (backend.Shape, error) {
	if len(l.Shape) == 0 && l.DType != backend.String {
		return nil, fmt.Errorf("an Input needs a shape, e.g. Input(28, 28, 1)")
	}
	switch l.DType {
	case backend.Float32, backend.Int32, backend.Int64, backend.String:
	default:
		return nil, fmt.Errorf("input dtype %v is not supported: use float32, int32 for token ids, or string for text", l.DType)
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
