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

// Threshold is x where x > threshold and defaultValue elsewhere, Keras's
// activations.threshold (ops.Threshold). It has no name for Get: Keras
// gives its threshold and default_value no defaults, so a layer cannot
// take it by name in Keras either; call it in a layer of your own.
func Threshold(b backend.Builder, x backend.Value, threshold, defaultValue float64) backend.Value {
	return ops.Threshold(b, x, threshold, defaultValue)
}

// activations maps Keras's names to their functions, written with
// keras/ops (one home for each formula), with Keras 3's defaults
// (leaky_relu's negative slope 0.2, elu's and celu's alpha 1, the
// shrinks' threshold 0.5, squareplus's b 4, glu's and sparsemax's axis
// -1).
var activations = map[string]Func{
	"linear":         func(_ backend.Builder, x backend.Value) backend.Value { return x },
	"relu":           ops.Relu,
	"sigmoid":        ops.Sigmoid,
	"tanh":           ops.Tanh,
	"softmax":        func(b backend.Builder, x backend.Value) backend.Value { return ops.Softmax(b, x, -1) },
	"log_softmax":    func(b backend.Builder, x backend.Value) backend.Value { return ops.LogSoftmax(b, x, -1) },
	"exponential":    ops.Exp,
	"relu6":          ops.Relu6,
	"hard_sigmoid":   ops.HardSigmoid,
	"softplus":       ops.Softplus,
	"leaky_relu":     func(b backend.Builder, x backend.Value) backend.Value { return ops.LeakyRelu(b, x, 0.2) },
	"elu":            func(b backend.Builder, x backend.Value) backend.Value { return ops.Elu(b, x, 1) },
	"selu":           ops.Selu,
	"silu":           ops.Silu,
	"hard_silu":      ops.HardSilu,
	"softsign":       ops.Softsign,
	"mish":           ops.Mish,
	"gelu":           Gelu,
	"celu":           func(b backend.Builder, x backend.Value) backend.Value { return ops.Celu(b, x, 1) },
	"glu":            func(b backend.Builder, x backend.Value) backend.Value { return ops.Glu(b, x, -1) },
	"hard_shrink":    func(b backend.Builder, x backend.Value) backend.Value { return ops.HardShrink(b, x, 0.5) },
	"hard_tanh":      ops.HardTanh,
	"log_sigmoid":    ops.LogSigmoid,
	"soft_shrink":    func(b backend.Builder, x backend.Value) backend.Value { return ops.SoftShrink(b, x, 0.5) },
	"sparse_plus":    ops.SparsePlus,
	"sparse_sigmoid": ops.SparseSigmoid,
	"sparsemax":      func(b backend.Builder, x backend.Value) backend.Value { return ops.Sparsemax(b, x, -1) },
	"squareplus":     func(b backend.Builder, x backend.Value) backend.Value { return ops.Squareplus(b, x, 4) },
	"tanh_shrink":    ops.TanhShrink,
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
// linear, relu, relu6, leaky_relu, elu, celu, selu, silu (swish),
// sigmoid, hard_sigmoid, sparse_sigmoid, log_sigmoid, hard_silu
// (hard_swish), tanh, hard_tanh, tanh_shrink, hard_shrink, soft_shrink,
// softmax, log_softmax, sparsemax, softplus, sparse_plus, squareplus,
// softsign, exponential, mish, glu, gelu (exact; GeluApproximate is the
// tanh form). Keras's threshold is refused: it has no defaults for its
// threshold and value, so Keras cannot call it by name either.
func Get(name string) (Func, error) {
	if a, ok := aliases[name]; ok {
		name = a
	}
	if name == "threshold" {
		return nil, fmt.Errorf("activation %q needs its threshold and default_value, which a name cannot give (Keras's activation=%q fails too): apply activations.Threshold in a Lambda or a layer of your own", name, name)
	}
	if f, ok := activations[name]; ok {
		return f, nil
	}
	return nil, fmt.Errorf("unknown activation %q: use one of %v", name, Names())
}

// OutputShape returns the shape of the activation name's output for an
// input of shape in: in itself but for glu, which halves the last axis
// (an even length; Keras refuses an odd one when it runs). Layers with an
// activation option give it their output shape.
func OutputShape(name string, in backend.Shape) (backend.Shape, error) {
	if name != "glu" {
		return in, nil
	}
	out := in.Clone()
	n := out[len(out)-1]
	if n < 0 || n%2 != 0 {
		return nil, fmt.Errorf("activation glu halves the last axis, of length %d here: give it an even length", n)
	}
	out[len(out)-1] = n / 2
	return out, nil
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
