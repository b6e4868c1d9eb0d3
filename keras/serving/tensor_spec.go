package serving

import (
	"strconv"
	"strings"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
)

// tensorSpec describes one input or output of a served model.
type tensorSpec struct {
	name  string
	shape []int // per sample, after the batch; -1 for a dimension of any length (Keras's None)
	ints  bool  // an input that takes integers (token ids: layers.IntInput)
	strs  bool  // an input that takes strings (text: layers.StringInput)
}

// specsOf returns the specs of a model's inputs and outputs.
func specsOf(m *keras.Model) (inputs, outputs []tensorSpec) {
	for i, t := range m.Inputs() {
		s := tensorSpec{name: m.InputNames()[i], shape: t.Shape()[1:]}
		if il, ok := t.Layer().(*layers.InputLayer); ok {
			s.ints = il.DType.IsInteger()
			s.strs = il.DType == backend.String
		}
		inputs = append(inputs, s)
	}
	for i, t := range m.Outputs() {
		outputs = append(outputs, tensorSpec{name: m.OutputNames()[i], shape: t.Shape()[1:]})
	}
	return inputs, outputs
}

// dtype is the spec's dtype as TensorFlow Serving names it.
func (s tensorSpec) dtype() string {
	if s.ints {
		return "DT_INT32"
	}
	if s.strs {
		return "DT_STRING"
	}
	return "DT_FLOAT"
}

// kerasShape writes the shape with its batch dimension, as Keras prints
// it: (None, 28, 28, 1).
func (s tensorSpec) kerasShape() string { return formatShape(append([]int{-1}, s.shape...)) }

// sampleShape writes the shape of one sample: (28, 28, 1).
func (s tensorSpec) sampleShape() string { return formatShape(s.shape) }

// fits reports whether a sample shape is one the spec takes.
func (s tensorSpec) fits(shape []int) bool {
	if len(shape) != len(s.shape) {
		return false
	}
	for i, d := range s.shape {
		if d >= 0 && shape[i] != d {
			return false
		}
	}
	return true
}

// formatShape writes a shape as a Python tuple, None for a dimension of
// any length: (28, 28, 1), (None, 4), (4,).
func formatShape(shape []int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		if d < 0 {
			parts[i] = "None"
		} else {
			parts[i] = strconv.Itoa(d)
		}
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
