package activations

import (
	"fmt"
	"sort"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
)

// Func applies an activation to x.
type Func func(b backend.Builder, x backend.Value) backend.Value

// ELU is x for x > 0 and alpha·(exp(x) - 1) otherwise (ops.Elu).
func ELU(b backend.Builder, x backend.Value, alpha float64) backend.Value {
	return ops.Elu(b, x, alpha)
}

// activations maps Keras's names to their functions, written with
// keras/ops (one home for each formula), with Keras 3's defaults
// (leaky_relu's negative slope 0.2, elu's alpha 1).
var activations = map[string]Func{
	"linear":       func(_ backend.Builder, x backend.Value) backend.Value { return x },
	"relu":         ops.Relu,
	"sigmoid":      ops.Sigmoid,
	"tanh":         ops.Tanh,
	"softmax":      func(b backend.Builder, x backend.Value) backend.Value { return ops.Softmax(b, x, -1) },
	"log_softmax":  func(b backend.Builder, x backend.Value) backend.Value { return ops.LogSoftmax(b, x, -1) },
	"exponential":  ops.Exp,
	"relu6":        ops.Relu6,
	"hard_sigmoid": ops.HardSigmoid,
	"softplus":     ops.Softplus,
	"leaky_relu":   func(b backend.Builder, x backend.Value) backend.Value { return ops.LeakyRelu(b, x, 0.2) },
	"elu":          func(b backend.Builder, x backend.Value) backend.Value { return ops.Elu(b, x, 1) },
	"selu":         ops.Selu,
	"silu":         ops.Silu,
	"hard_silu":    ops.HardSilu,
	"softsign":     ops.Softsign,
	"mish":         ops.Mish,
	"gelu":         Gelu,
}

// Gelu is the exact Gaussian error linear unit, Keras's gelu activation
// with its default approximate=False (ops.Gelu).
func Gelu(b backend.Builder, x backend.Value) backend.Value { return ops.Gelu(b, x, false) }

// GeluApproximate is Keras's gelu with approximate=True, the tanh form.
func GeluApproximate(b backend.Builder, x backend.Value) backend.Value { return ops.Gelu(b, x, true) }

// aliases are Keras's other spellings.
var aliases = map[string]string{
	"": "linear", "swish": "silu", "hard_swish": "hard_silu",
}

// Get returns the activation a Keras name denotes (keras.activations.get):
// linear, relu, relu6, leaky_relu, elu, selu, silu (swish), sigmoid,
// hard_sigmoid, hard_silu (hard_swish), tanh, softmax, log_softmax,
// softplus, softsign, exponential, mish, gelu (exact; GeluApproximate is
// the tanh form).
func Get(name string) (Func, error) {
	if a, ok := aliases[name]; ok {
		name = a
	}
	if f, ok := activations[name]; ok {
		return f, nil
	}
	return nil, fmt.Errorf("unknown activation %q: use one of %v", name, Names())
}

// Names returns the activation names Get knows, sorted.
func Names() []string {
	out := make([]string, 0, len(activations))
	for n := range activations {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
