package layers

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// EinsumDense is a dense layer written as an einsum of the input with a
// kernel, like keras.layers.EinsumDense: Equation names the input's, the
// kernel's and the output's axes ("ab,bc->ac" is Dense; "abc,cde->abde"
// projects a sequence into heads), and the kernel's shape follows from
// the input's and OutputShape, as Keras derives it. An ellipsis stands for
// the axes the equation does not name, on the left ("...b,bc->...c") or
// the right ("ab...,bc->ac...").
//
// The kernel's fans are its input and its output axes, as Keras gives its
// VarianceScaling initializers (Glorot, He, Lecun).
type EinsumDense struct {
	Equation string // required
	// OutputShape is the output's shape without the batch (and without
	// the axes an ellipsis stands for), Keras's output_shape; -1 (None)
	// is an axis whose length the input gives.
	OutputShape []int
	// BiasAxes names the output axes the bias spans (Keras's bias_axes,
	// e.g. "de"); empty for no bias.
	BiasAxes          string
	Activation        string // empty is linear
	KernelInitializer string // default "glorot_uniform"
	BiasInitializer   string // default "zeros"
	// KernelRegularizer and BiasRegularizer add penalties of the kernel
	// and the bias to the loss; KernelConstraint and BiasConstraint
	// project them after each update.
	KernelRegularizer, BiasRegularizer regularizers.Regularizer
	KernelConstraint, BiasConstraint   constraints.Constraint
	Base

	kernel, bias *Weight
	act          activations.Func
	explicit     string // Equation with the ellipsis written out, for ops.Einsum
}

// ClassName returns "EinsumDense".
func (*EinsumDense) ClassName() string { return "EinsumDense" }

// einsumShapes is what an EinsumDense equation gives for one input shape
// (Keras's _analyze_einsum_string).
type einsumShapes struct {
	kernel, bias, output backend.Shape // bias nil without BiasAxes
	fanIn, fanOut        int
	explicit             string
}

var einsumForms = []struct {
	re          *regexp.Regexp
	leftElided  bool
	rightElided bool
}{
	{regexp.MustCompile(`^([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$`), false, false},
	{regexp.MustCompile(`^0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)$`), true, false},
	{regexp.MustCompile(`^([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0$`), false, true},
}

// analyze derives the kernel, bias and output shapes of l's equation for
// input shape in.
func (l *EinsumDense) analyze(in backend.Shape) (einsumShapes, error) {
	var s einsumShapes
	eq := strings.ReplaceAll(strings.ReplaceAll(l.Equation, " ", ""), "...", "0")
	var m []string
	left, right := false, false
	for _, f := range einsumForms {
		if m = f.re.FindStringSubmatch(eq); m != nil {
			left, right = f.leftElided, f.rightElided
			break
		}
	}
	if m == nil {
		return s, fmt.Errorf("equation %q must be of the form [X],[Y]->[Z], ...[X],[Y]->...[Z] or [X]...,[Y]->[Z]..., as in Keras", l.Equation)
	}
	inSpec, wSpec, outSpec := m[1], m[2], m[3]
	elided := len(in) - len(inSpec)
	if elided < 0 || (elided > 0 && !left && !right) || (right && elided == 0) {
		return s, fmt.Errorf("equation %q names %d input axes, but the input %v has %d", l.Equation, len(inSpec), in, len(in))
	}
	given := len(outSpec) - 1 // the batch is the output's first label
	if left {
		given = len(outSpec) // the batch is in the ellipsis
	}
	if len(l.OutputShape) != given {
		return s, fmt.Errorf("output_shape %v gives %d axes, but the equation %q gives the output %d besides the batch and the ellipsis", l.OutputShape, len(l.OutputShape), l.Equation, given)
	}
	// The output's full shape: the batch, the axes on the left an
	// ellipsis stands for, the given ones, those it stands for on the
	// right.
	out := backend.Shape{in[0]}
	if left {
		out = append(out, in[1:elided]...)
	}
	out = append(out, l.OutputShape...)
	if right {
		out = append(out, in[len(in)-elided:]...)
	}
	inAxis, outAxis := map[byte]int{}, map[byte]int{}
	for i := range inSpec {
		inAxis[inSpec[i]] = i
		if left {
			inAxis[inSpec[i]] = i + elided
		}
	}
	offset := 0
	if left {
		offset = elided
	}
	for i := range outSpec {
		outAxis[outSpec[i]] = i + offset
	}
	for i := range inSpec {
		d := inSpec[i]
		if j, ok := outAxis[d]; ok {
			if out[j] >= 0 && out[j] != in[inAxis[d]] {
				return s, fmt.Errorf("the input %v and output_shape %v differ along the shared axis %q: %d and %d", in, l.OutputShape, string(d), in[inAxis[d]], out[j])
			}
			out[j] = in[inAxis[d]]
		}
	}
	for i := range outSpec {
		if !strings.ContainsRune(inSpec, rune(outSpec[i])) && !strings.ContainsRune(wSpec, rune(outSpec[i])) {
			return s, fmt.Errorf("output axis %q of %q is neither an input axis nor a kernel axis", string(outSpec[i]), l.Equation)
		}
	}
	s.fanIn, s.fanOut = 1, 1
	for i := range wSpec {
		d := wSpec[i]
		var n int
		if j, ok := outAxis[d]; ok {
			n = out[j]
			s.fanOut *= max(n, 1)
		} else if j, ok := inAxis[d]; ok {
			n = in[j]
			s.fanIn *= max(n, 1)
		} else {
			return s, fmt.Errorf("kernel axis %q of %q is neither an input nor an output axis: the kernel must be fully specified, as in Keras", string(d), l.Equation)
		}
		if n < 1 {
			return s, fmt.Errorf("kernel axis %q of %q has no known length (input %v, output_shape %v): give it in output_shape", string(d), l.Equation, in, l.OutputShape)
		}
		s.kernel = append(s.kernel, n)
	}
	if l.BiasAxes != "" {
		first := len(outSpec)
		for i := range l.BiasAxes {
			j := strings.IndexByte(outSpec, l.BiasAxes[i])
			if j < 0 {
				return s, fmt.Errorf("bias axis %q is not an axis of the output %q", string(l.BiasAxes[i]), outSpec)
			}
			first = min(first, j)
		}
		for _, d := range outSpec[first:] {
			n := 1
			if strings.ContainsRune(l.BiasAxes, d) {
				if n = out[outAxis[byte(d)]]; n < 1 {
					return s, fmt.Errorf("bias axis %q has no known length: give it in output_shape", string(d))
				}
			}
			s.bias = append(s.bias, n)
		}
		if right {
			for range elided {
				s.bias = append(s.bias, 1)
			}
		}
	}
	s.output = out
	s.explicit = explicitEinsum(inSpec, wSpec, outSpec, elided, left, right)
	return s, nil
}

// explicitEinsum writes an EinsumDense equation with its ellipsis as
// letters the equation does not use.
func explicitEinsum(inSpec, wSpec, outSpec string, elided int, left, right bool) string {
	if !left && !right {
		return inSpec + "," + wSpec + "->" + outSpec
	}
	var free []byte
	for c := byte('a'); c <= 'z' && len(free) < elided; c++ {
		if !strings.ContainsRune(inSpec+wSpec+outSpec, rune(c)) {
			free = append(free, c)
		}
	}
	for c := byte('A'); c <= 'Z' && len(free) < elided; c++ {
		if !strings.ContainsRune(inSpec+wSpec+outSpec, rune(c)) {
			free = append(free, c)
		}
	}
	e := string(free)
	if left {
		return e + inSpec + "," + wSpec + "->" + e + outSpec
	}
	return inSpec + e + "," + wSpec + "->" + outSpec + e
}

// Build derives the kernel's shape from the equation and creates the
// kernel and the bias.
func (l *EinsumDense) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	s, err := l.analyze(in)
	if err != nil {
		return nil, err
	}
	if l.act, err = activations.Get(l.Activation); err != nil {
		return nil, err
	}
	kinit, err := initializers.Get(l.KernelInitializer, initializers.GlorotUniform{})
	if err != nil {
		return nil, err
	}
	if l.kernel, err = l.AddWeight("kernel", s.kernel, initializers.WithFans(kinit, s.fanIn, s.fanOut)); err != nil {
		return nil, err
	}
	if err := regularize(l.kernel, "kernel", l.KernelRegularizer, l.KernelConstraint); err != nil {
		return nil, err
	}
	l.bias = nil
	if s.bias == nil && (l.BiasRegularizer != nil || l.BiasConstraint != nil) {
		return nil, fmt.Errorf("a bias regularizer or constraint was given without bias_axes: drop it, or give BiasAxes")
	}
	if s.bias != nil {
		binit, err := initializers.Get(l.BiasInitializer, initializers.Constant{})
		if err != nil {
			return nil, err
		}
		if l.bias, err = l.AddWeight("bias", s.bias, binit); err != nil {
			return nil, err
		}
		if err := regularize(l.bias, "bias", l.BiasRegularizer, l.BiasConstraint); err != nil {
			return nil, err
		}
	}
	l.explicit = s.explicit
	return activations.OutputShape(l.Activation, s.output)
}

// Call computes the einsum, adds the bias and activates.
func (l *EinsumDense) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	y := ops.Einsum(b, l.explicit, in[0], ctx.Weight(l.kernel))
	if l.bias != nil {
		y = b.Add(y, ctx.Weight(l.bias))
	}
	return l.act(b, y)
}

// GetConfig returns Keras's EinsumDense config.
func (l *EinsumDense) GetConfig() (serialization.Config, error) {
	shape := make([]any, len(l.OutputShape))
	for i, n := range l.OutputShape {
		if n >= 0 {
			shape[i] = n
		}
	}
	var bias any
	if l.BiasAxes != "" {
		bias = l.BiasAxes
	}
	k, err := initializers.Serialize(l.KernelInitializer, "glorot_uniform")
	if err != nil {
		return nil, err
	}
	bi, err := initializers.Serialize(l.BiasInitializer, "zeros")
	if err != nil {
		return nil, err
	}
	cfg := serialization.Config{
		"output_shape": shape, "equation": l.Equation, "activation": activationName(l.Activation), "bias_axes": bias,
		"kernel_initializer": k, "bias_initializer": bi, "activity_regularizer": nil, "quantization_config": nil,
	}
	return cfg, penaltiesConfig(cfg, map[string]regularizers.Regularizer{"kernel": l.KernelRegularizer, "bias": l.BiasRegularizer},
		map[string]constraints.Constraint{"kernel": l.KernelConstraint, "bias": l.BiasConstraint})
}

// takesUnknownDims: EinsumDense reads the lengths the kernel does not
// span from its input.
func (*EinsumDense) takesUnknownDims() {}

func init() {
	mustRegister("EinsumDense", func(r *serialization.Reader) (Layer, error) {
		l := &EinsumDense{Equation: r.String("equation", ""), Activation: readActivation(r, "activation")}
		if l.Equation == "" {
			r.Fail("equation", "is required")
		}
		if v, ok := r.Value("output_shape"); ok {
			switch x := v.(type) {
			case float64:
				l.OutputShape = []int{int(x)}
			default:
				l.OutputShape = r.Ints("output_shape")
			}
		}
		if !r.IsNull("bias_axes") {
			l.BiasAxes = r.String("bias_axes", "")
		}
		r.ExpectNull("quantization_config")
		r.ExpectNull("lora_rank")
		l.KernelInitializer, l.BiasInitializer = readInitializer(r, "kernel_initializer"), readInitializer(r, "bias_initializer")
		l.KernelRegularizer, l.BiasRegularizer = readRegularizer(r, "kernel_regularizer"), readRegularizer(r, "bias_regularizer")
		l.KernelConstraint, l.BiasConstraint = readConstraint(r, "kernel_constraint"), readConstraint(r, "bias_constraint")
		return l, nil
	})
}
