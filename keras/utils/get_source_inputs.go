package utils

import "github.com/kerasgo/kerasgo/keras/layers"

// GetSourceInputs returns the model inputs (layers.Input, IntInput,
// ...) that t is computed from, each once, in the order a depth-first
// walk of its layers' inputs meets them, like keras.utils.get_source_inputs:
// an input itself gives itself. It is how to find the inputs of a
// Functional model to build from any of its values.
func GetSourceInputs(t *layers.KerasTensor) []*layers.KerasTensor {
	var out []*layers.KerasTensor
	seen := map[*layers.KerasTensor]bool{}
	var walk func(t *layers.KerasTensor)
	walk = func(t *layers.KerasTensor) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		if _, input := t.Layer().(*layers.InputLayer); input {
			out = append(out, t)
			return
		}
		for _, in := range t.Head().Inputs() {
			walk(in)
		}
		if m := t.Head().MaskArgument(); m != nil {
			walk(m)
		}
	}
	walk(t)
	return out
}
