package activations

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Func applies an activation to x.
type Func func(b backend.Builder, x backend.Value) backend.Value

// Get returns the activation a Keras name denotes: "linear" (or ""),
// "relu", "sigmoid", "tanh", "softmax".
func Get(name string) (Func, error) {
	switch name {
	case "", "linear":
		return func(_ backend.Builder, x backend.Value) backend.Value { return x }, nil
	case "relu":
		return backend.Builder.Relu, nil
	case "sigmoid":
		return backend.Builder.Sigmoid, nil
	case "tanh":
		return backend.Builder.Tanh, nil
	case "softmax":
		return backend.Builder.Softmax, nil
	}
	return nil, fmt.Errorf("unknown activation %q: use linear, relu, sigmoid, tanh or softmax", name)
}
