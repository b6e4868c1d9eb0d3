package activations

import (
	"fmt"
	"sort"

	"github.com/kerasgo/kerasgo/keras/backend"
)

// Func applies an activation to x.
type Func func(b backend.Builder, x backend.Value) backend.Value

// Constants of Keras's selu (keras/src/activations/activations.py).
const (
	seluAlpha = 1.67326324235437728481
	seluScale = 1.05070098735548049342
)

func abs(b backend.Builder, x backend.Value) backend.Value { return b.Maximum(x, b.Neg(x)) }

// softplus is log(1 + exp(x)), computed as relu(x) + log(1 + exp(-|x|))
// so that it never overflows.
func softplus(b backend.Builder, x backend.Value) backend.Value {
	return b.Add(b.Relu(x), b.Log(b.Add(b.Scalar(1), b.Exp(b.Neg(abs(b, x))))))
}

// elu is x for x > 0 and exp(x) - 1 otherwise, as relu(x) + exp(min(x,
// 0)) - 1, which never overflows.
func elu(b backend.Builder, x backend.Value, alpha float64) backend.Value {
	neg := b.Sub(b.Exp(b.Minimum(x, b.Scalar(0))), b.Scalar(1))
	return b.Add(b.Relu(x), b.Mul(neg, b.Scalar(alpha)))
}

func relu6(b backend.Builder, x backend.Value) backend.Value {
	return b.Minimum(b.Relu(x), b.Scalar(6))
}

func hardSigmoid(b backend.Builder, x backend.Value) backend.Value {
	return b.Mul(relu6(b, b.Add(x, b.Scalar(3))), b.Scalar(1.0/6))
}

// activations maps Keras's names to their functions, with Keras 3's
// defaults (leaky_relu's negative slope 0.2, elu's alpha 1).
var activations = map[string]Func{
	"linear":       func(_ backend.Builder, x backend.Value) backend.Value { return x },
	"relu":         backend.Builder.Relu,
	"sigmoid":      backend.Builder.Sigmoid,
	"tanh":         backend.Builder.Tanh,
	"softmax":      backend.Builder.Softmax,
	"log_softmax":  backend.Builder.LogSoftmax,
	"exponential":  backend.Builder.Exp,
	"relu6":        relu6,
	"hard_sigmoid": hardSigmoid,
	"softplus":     softplus,
	"leaky_relu": func(b backend.Builder, x backend.Value) backend.Value {
		return b.Maximum(x, b.Mul(x, b.Scalar(0.2)))
	},
	"elu": func(b backend.Builder, x backend.Value) backend.Value { return elu(b, x, 1) },
	"selu": func(b backend.Builder, x backend.Value) backend.Value {
		return b.Mul(elu(b, x, seluAlpha), b.Scalar(seluScale))
	},
	"silu":      func(b backend.Builder, x backend.Value) backend.Value { return b.Mul(x, b.Sigmoid(x)) },
	"hard_silu": func(b backend.Builder, x backend.Value) backend.Value { return b.Mul(x, hardSigmoid(b, x)) },
	"softsign": func(b backend.Builder, x backend.Value) backend.Value {
		return b.Div(x, b.Add(abs(b, x), b.Scalar(1)))
	},
	"mish": func(b backend.Builder, x backend.Value) backend.Value { return b.Mul(x, b.Tanh(softplus(b, x))) },
}

// aliases are Keras's other spellings.
var aliases = map[string]string{
	"": "linear", "swish": "silu", "hard_swish": "hard_silu",
}

// Get returns the activation a Keras name denotes (keras.activations.get):
// linear, relu, relu6, leaky_relu, elu, selu, silu (swish), sigmoid,
// hard_sigmoid, hard_silu (hard_swish), tanh, softmax, log_softmax,
// softplus, softsign, exponential, mish. "gelu" is not available yet (the
// op set has no erf).
func Get(name string) (Func, error) {
	if a, ok := aliases[name]; ok {
		name = a
	}
	if f, ok := activations[name]; ok {
		return f, nil
	}
	if name == "gelu" {
		return nil, fmt.Errorf("activation \"gelu\" is not available in kerasgo yet: its exact form needs erf, which the op set does not have")
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
