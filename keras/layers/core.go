package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/activations"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Dense is a densely connected layer: activation(x·kernel + bias), applied
// to the last axis of its input, like keras.layers.Dense.
type Dense struct {
	Units             int    // output size; required
	Activation        string // "relu", "softmax", ...; empty is linear
	NoBias            bool   // Keras's use_bias=False
	KernelInitializer string // default "glorot_uniform"
	BiasInitializer   string // default "zeros"
	Base

	kernel, bias *Weight
	act          activations.Func
}

// ClassName returns "Dense".
func (d *Dense) ClassName() string { return "Dense" }

// Build creates kernel (in, units) and bias (units).
func (d *Dense) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if d.Units <= 0 {
		return nil, fmt.Errorf("units must be positive, got %d", d.Units)
	}
	if len(in) < 2 || in[len(in)-1] <= 0 {
		return nil, fmt.Errorf("expected an input of shape (batch, ..., features), received %v", in)
	}
	if d.act, err = activations.Get(d.Activation); err != nil {
		return nil, err
	}
	features := in[len(in)-1]
	if d.kernel != nil && d.kernel.Shape[0] != features {
		return nil, fmt.Errorf("expected axis -1 of input shape to have value %d, but received input with shape %v", d.kernel.Shape[0], in)
	}
	if d.kernel, d.bias, err = d.addKernelAndBias(backend.Shape{features, d.Units}, d.Units, d.KernelInitializer, d.BiasInitializer, d.NoBias); err != nil {
		return nil, err
	}
	out := in.Clone()
	out[len(out)-1] = d.Units
	return out, nil
}

// Call computes activation(x·kernel + bias).
func (d *Dense) Call(ctx *Context, inputs []backend.Value) backend.Value {
	b, x := ctx.B, inputs[0]
	s := x.Shape()
	if len(s) > 2 { // apply to the last axis: fold the others into rows
		x = b.Reshape(x, backend.Shape{s.Size() / s[len(s)-1], s[len(s)-1]})
	}
	y := b.MatMul(x, ctx.Weight(d.kernel))
	if d.bias != nil {
		y = b.Add(y, ctx.Weight(d.bias))
	}
	if len(s) > 2 {
		out := s.Clone()
		out[len(out)-1] = d.Units
		y = b.Reshape(y, out)
	}
	return d.act(b, y)
}

// Activation applies an activation function, like keras.layers.Activation.
type Activation struct {
	Fn string // "relu", "softmax", "sigmoid", "tanh", "linear"
	Base

	act activations.Func
}

// ClassName returns "Activation".
func (a *Activation) ClassName() string { return "Activation" }

// Build checks the activation name; the shape is unchanged.
func (a *Activation) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if a.act, err = activations.Get(a.Fn); err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// Call applies the activation.
func (a *Activation) Call(ctx *Context, inputs []backend.Value) backend.Value {
	return a.act(ctx.B, inputs[0])
}

// Dropout sets a fraction Rate of its inputs to zero during training and
// scales the rest by 1/(1-Rate) (inverted dropout), like
// keras.layers.Dropout. Outside training it passes its input through.
type Dropout struct {
	Rate float64 // in [0, 1)
	Base
}

// ClassName returns "Dropout".
func (d *Dropout) ClassName() string { return "Dropout" }

// Build checks the rate; the shape is unchanged.
func (d *Dropout) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if d.Rate < 0 || d.Rate >= 1 {
		return nil, fmt.Errorf("rate must be in [0, 1), got %v", d.Rate)
	}
	return in.Clone(), nil
}

// Call masks the input with a fresh random mask in training.
func (d *Dropout) Call(ctx *Context, inputs []backend.Value) backend.Value {
	x := inputs[0]
	if !ctx.Training || d.Rate == 0 {
		return x
	}
	b := ctx.B
	keep := b.Greater(b.RandomUniform(x.Shape()), b.Scalar(d.Rate))
	return b.Mul(b.Mul(x, keep), b.Scalar(1/(1-d.Rate)))
}

// Flatten flattens all but the batch dimension, like keras.layers.Flatten.
type Flatten struct {
	Base
}

// ClassName returns "Flatten".
func (f *Flatten) ClassName() string { return "Flatten" }

// Build returns (batch, product of the other dimensions).
func (f *Flatten) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) < 2 {
		return nil, fmt.Errorf("expected an input with a batch dimension and at least one more, received %v", in)
	}
	return backend.Shape{in[0], in[1:].Size()}, nil
}

// Call reshapes the input.
func (f *Flatten) Call(ctx *Context, inputs []backend.Value) backend.Value {
	s := inputs[0].Shape()
	return ctx.B.Reshape(inputs[0], backend.Shape{s[0], s[1:].Size()})
}

// Reshape gives its input a new shape (excluding the batch dimension), like
// keras.layers.Reshape. One dimension may be -1 to be inferred.
type Reshape struct {
	TargetShape []int
	Base
}

// ClassName returns "Reshape".
func (r *Reshape) ClassName() string { return "Reshape" }

// Build resolves a -1 in TargetShape and checks the sizes agree.
func (r *Reshape) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	target, err := r.resolve(in[1:].Size())
	if err != nil {
		return nil, fmt.Errorf("%w (input shape %v)", err, in)
	}
	return append(backend.Shape{in[0]}, target...), nil
}

func (r *Reshape) resolve(size int) (backend.Shape, error) {
	out := backend.Shape(append([]int(nil), r.TargetShape...))
	unknown, known := -1, 1
	for i, d := range out {
		switch {
		case d == -1 && unknown < 0:
			unknown = i
		case d <= 0:
			return nil, fmt.Errorf("target shape %v may hold positive sizes and one -1", r.TargetShape)
		default:
			known *= d
		}
	}
	if unknown >= 0 {
		if known == 0 || size%known != 0 {
			return nil, fmt.Errorf("cannot reshape %d values per sample to %v", size, r.TargetShape)
		}
		out[unknown] = size / known
	}
	if out.Size() != size {
		return nil, fmt.Errorf("cannot reshape %d values per sample to %v (%d values)", size, r.TargetShape, out.Size())
	}
	return out, nil
}

// Call reshapes the input.
func (r *Reshape) Call(ctx *Context, inputs []backend.Value) backend.Value {
	s := inputs[0].Shape()
	target, _ := r.resolve(s[1:].Size()) // checked in Build
	return ctx.B.Reshape(inputs[0], append(backend.Shape{s[0]}, target...))
}

// GetConfig returns Keras's Dense config.
func (d *Dense) GetConfig() (serialization.Config, error) {
	cfg := serialization.Config{"units": d.Units, "activation": activationName(d.Activation)}
	return cfg, kernelAndBiasConfig(cfg, d.NoBias, d.KernelInitializer, d.BiasInitializer)
}

// GetConfig returns Keras's Activation config.
func (a *Activation) GetConfig() (serialization.Config, error) {
	return serialization.Config{"activation": activationName(a.Fn)}, nil
}

func (a *Activation) withoutBuildConfig() {}

// GetConfig returns Keras's Dropout config.
func (d *Dropout) GetConfig() (serialization.Config, error) {
	return serialization.Config{"rate": d.Rate, "seed": nil, "noise_shape": nil}, nil
}

func (d *Dropout) withoutBuildConfig() {}

// Keras 3 builds Reshape in its constructor: its files hold no build_config.
func (r *Reshape) withoutBuildConfig() {}

// GetConfig returns Keras's Flatten config.
func (f *Flatten) GetConfig() (serialization.Config, error) {
	return serialization.Config{"data_format": "channels_last"}, nil
}

// GetConfig returns Keras's Reshape config.
func (r *Reshape) GetConfig() (serialization.Config, error) {
	return serialization.Config{"target_shape": r.TargetShape}, nil
}

// takesUnknownDims: Dense reads lengths other than its features from its input.
func (*Dense) takesUnknownDims() {}

// takesUnknownDims: Activation reads lengths other than its features from its input.
func (*Activation) takesUnknownDims() {}

// takesUnknownDims: Dropout reads lengths other than its features from its input.
func (*Dropout) takesUnknownDims() {}
