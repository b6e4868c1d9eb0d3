package saving

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/serialization"
)

// LayerPaths returns where Keras keeps each layer's variables in a weights
// file, given the layers' class names in the model's order (Sequential:
// without the InputLayer; Functional: with it): "layers/dense",
// "layers/dense_1", "layers/conv2d", ... Keras names them by class, not by
// the layer's configured name, numbering repeats of a class in order of
// appearance (saving_lib.py, _save_container_state). The variables
// themselves are in <path>/vars/0, 1, ...
func LayerPaths(classNames []string) []string {
	used := map[string]int{}
	out := make([]string, len(classNames))
	for i, c := range classNames {
		name := serialization.SnakeCase(c)
		if n, seen := used[name]; seen {
			used[name] = n + 1
			name = fmt.Sprintf("%s_%d", name, n+1)
		} else {
			used[name] = 0
		}
		out[i] = "layers/" + name
	}
	return out
}

// OptimizerPath is where Keras keeps the optimizer's variables: the
// iteration count, the learning rate, then each parameter's slots.
const OptimizerPath = "optimizer"
