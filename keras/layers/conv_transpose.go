package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/ops"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// What the transposed convolutions (Conv1DTranspose, Conv2DTranspose,
// Conv3DTranspose) share, as Keras's BaseConvTranspose: their settings as
// one value per spatial axis, the output shape, the call and the config.
// Each class file holds its typed fields and turns them into a
// transposeSpec.

// transposeSpec is a transposed convolution's settings, one value per
// spatial axis.
type transposeSpec struct {
	kernel, strides, dilation []int
	outputPadding             []int // nil: Keras's None (the padding alone sets the length)
	padding                   string
}

// newTransposeSpec fills Keras's defaults into the settings of a
// transposed convolution over n spatial axes: strides and dilation of 1
// where zero, "valid", and output padding spread to every axis when one
// value is given.
func newTransposeSpec(kernel, strides, dilation, outputPadding []int, padding string) transposeSpec {
	one := func(v []int) []int {
		out := make([]int, len(v))
		for i, e := range v {
			out[i] = max(e, 1)
			if e < 0 {
				out[i] = e // refused by check
			}
		}
		return out
	}
	if padding == "" {
		padding = "valid"
	}
	op := outputPadding
	if len(op) == 1 && len(kernel) > 1 {
		op = make([]int, len(kernel))
		for i := range op {
			op[i] = outputPadding[0]
		}
	}
	return transposeSpec{kernel: kernel, strides: one(strides), dilation: one(dilation), outputPadding: op, padding: padding}
}

// check reports settings Keras refuses.
func (t transposeSpec) check(in backend.Shape, filters int) error {
	n := len(t.kernel)
	if len(in) != n+2 || in[n+1] <= 0 {
		return fmt.Errorf("expected an input of shape (batch, %s, channels), received %v", map[int]string{1: "steps", 2: "rows, cols", 3: "depth, rows, cols"}[n], in)
	}
	if filters <= 0 {
		return fmt.Errorf("filters must be positive, got %d", filters)
	}
	for i := range n {
		if t.kernel[i] <= 0 || t.strides[i] <= 0 || t.dilation[i] <= 0 {
			return fmt.Errorf("kernel size, strides and dilation rate must be positive, got %v, %v and %v", t.kernel, t.strides, t.dilation)
		}
	}
	if t.padding != "valid" && t.padding != "same" {
		return fmt.Errorf("padding must be \"valid\" or \"same\", got %q", t.padding)
	}
	if t.outputPadding != nil {
		if len(t.outputPadding) != n {
			return fmt.Errorf("output_padding %v: give one value, or one per spatial axis (%d)", t.outputPadding, n)
		}
		for i, p := range t.outputPadding {
			if p < 0 || p >= t.strides[i] {
				return fmt.Errorf("output_padding %v must be at least 0 and strictly less than the strides %v, as in Keras", t.outputPadding, t.strides)
			}
		}
	}
	if maxOf(t.strides) > 1 && maxOf(t.dilation) > 1 {
		return fmt.Errorf("strides %v > 1 cannot be used with dilation_rate %v > 1, as in Keras", t.strides, t.dilation)
	}
	return nil
}

func maxOf(v []int) int {
	m := v[0]
	for _, e := range v[1:] {
		m = max(m, e)
	}
	return m
}

// length is Keras's output length along axis i for an input of length
// n (_get_output_shape_given_tf_padding); a free length stays free.
func (t transposeSpec) length(i, n int) int {
	if n < 0 {
		return -1
	}
	k := (t.kernel[i]-1)*t.dilation[i] + 1
	s := t.strides[i]
	switch {
	case t.padding == "valid" && t.outputPadding == nil:
		return (n-1)*s + k + max(k, s) - k
	case t.padding == "valid":
		return (n-1)*s + k + t.outputPadding[i]
	case t.outputPadding == nil:
		return n * s
	default:
		return (n-1)*s + k%2 + t.outputPadding[i]
	}
}

// build checks the settings, creates kernel (spatial..., filters,
// channels) and bias, and returns the output shape.
func (t transposeSpec) build(c *Base, inputs []backend.Shape, filters int, kb kernelAndBias, activation string) (kernel, bias *Weight, act activations.Func, out backend.Shape, err error) {
	in, err := one(inputs)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if err := t.check(in, filters); err != nil {
		return nil, nil, nil, nil, err
	}
	if act, err = activations.Get(activation); err != nil {
		return nil, nil, nil, nil, err
	}
	n := len(t.kernel)
	out = backend.Shape{in[0]}
	for i := range n {
		if out = append(out, t.length(i, in[i+1])); out[i+1] == 0 {
			return nil, nil, nil, nil, fmt.Errorf("the output of an input %v would be empty along spatial axis %d", in, i)
		}
	}
	out = append(out, filters)
	kshape := append(backend.Shape(t.kernel).Clone(), filters, in[n+1])
	if kernel, bias, err = c.addKernelAndBias(kshape, filters, kb); err != nil {
		return nil, nil, nil, nil, err
	}
	out, err = activations.OutputShape(activation, out)
	return kernel, bias, act, out, err
}

// call computes Keras's ops.conv_transpose, plus the bias, activated.
func (t transposeSpec) call(ctx *Context, x backend.Value, kernel, bias *Weight, act activations.Func) backend.Value {
	b := ctx.B
	y := ops.ConvTranspose(b, x, ctx.Weight(kernel), ops.ConvTransposeOptions{Strides: t.strides, Padding: backend.Padding(t.padding), OutputPadding: t.outputPadding, DilationRate: t.dilation})
	if bias != nil {
		y = b.Add(y, ctx.Weight(bias))
	}
	return act(b, y)
}

// config is Keras's config of the transposed convolution.
func (t transposeSpec) config(filters int, activation string, kb kernelAndBias) (serialization.Config, error) {
	var outPad any
	if t.outputPadding != nil {
		outPad = t.outputPadding
	}
	cfg := serialization.Config{
		"filters": filters, "kernel_size": t.kernel, "strides": t.strides, "padding": t.padding,
		"output_padding": outPad, "data_format": "channels_last", "dilation_rate": t.dilation,
		"activation": activationName(activation), "activity_regularizer": nil,
	}
	return cfg, kernelAndBiasConfig(cfg, kb)
}

// readTuple reads Keras's int-or-tuple of n positive integers (a
// convolution's kernel_size, strides, dilation_rate over n spatial axes).
func readTuple(r *serialization.Reader, key string, n, def int) []int {
	ones := make([]int, n)
	for i := range ones {
		ones[i] = def
	}
	switch n {
	case 1:
		return []int{readPositiveOne(r, key, def)}
	case 2:
		p := r.PositivePair(key, [2]int(ones))
		return p[:]
	}
	p := r.PositiveTriple(key, [3]int(ones))
	return p[:]
}

// readTranspose reads a transposed convolution over n spatial axes from
// Keras's config.
func readTranspose(r *serialization.Reader, n int) (filters int, t transposeSpec, activation string, kb kernelAndBias) {
	r.NotNull("kernel_size", "strides", "padding", "dilation_rate")
	tuple := func(key string, def int) []int { return readTuple(r, key, n, def) }
	filters = r.PositiveInt("filters", 0)
	kernel, strides, dilation := tuple("kernel_size", 0), tuple("strides", 1), tuple("dilation_rate", 1)
	var outPad []int
	if v, ok := r.Value("output_padding"); ok && v != nil {
		if _, isNum := v.(float64); isNum {
			outPad = []int{r.Int("output_padding", 0)}
		} else {
			outPad = r.Ints("output_padding")
		}
	}
	padding := r.String("padding", "valid")
	r.Expect("data_format", "channels_last", "kerasgo's convolutions take channels_last input")
	return filters, newTransposeSpec(kernel, strides, dilation, outPad, padding), readActivation(r, "activation"), readKernelAndBias(r)
}
