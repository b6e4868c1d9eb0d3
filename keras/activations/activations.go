package activations

import (
	"fmt"
	"math"
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

// ELU is x for x > 0 and alpha*(exp(x) - 1) otherwise, computed as
// relu(x) + alpha*(exp(min(x, 0)) - 1), which never overflows.
func ELU(b backend.Builder, x backend.Value, alpha float64) backend.Value { return elu(b, x, alpha) }

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
	"gelu": Gelu,
}

// Gelu is the exact Gaussian error linear unit, Keras's gelu with its
// default approximate=False: x/2 * (1 + erf(x/sqrt(2))).
func Gelu(b backend.Builder, x backend.Value) backend.Value {
	return b.Mul(b.Mul(x, b.Scalar(0.5)), b.Add(b.Scalar(1), b.Erf(b.Mul(x, b.Scalar(1/math.Sqrt2)))))
}

// GeluApproximate is Keras's gelu with approximate=True:
// x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x³))).
func GeluApproximate(b backend.Builder, x backend.Value) backend.Value {
	inner := b.Mul(b.Add(x, b.Mul(b.Mul(b.Square(x), x), b.Scalar(0.044715))), b.Scalar(math.Sqrt(2/math.Pi)))
	return b.Mul(b.Mul(x, b.Scalar(0.5)), b.Add(b.Scalar(1), b.Tanh(inner)))
}

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
