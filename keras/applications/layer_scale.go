package applications

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// LayerScale multiplies each channel of its input by a trained weight
// (Touvron et al., 2021), Keras's class of the same name in
// keras.applications.convnext: ConvNeXt scales each block's residual
// with it. The weight, named "variable" as Keras's is, starts at
// InitValues. It is registered with kerasgo's layers when this package
// is imported, so that a ConvNeXt saved by Keras loads.
type LayerScale struct {
	InitValues    float64
	ProjectionDim int // the channels of the input
	layers.Base

	// weightName is the weight's name: Keras names an unnamed variable
	// "variable", then "variable_1", ... in the order a session creates
	// them, which ConvNeXt follows; "" is "variable".
	weightName string
	gamma      *layers.Weight
}

// ClassName returns "LayerScale".
func (*LayerScale) ClassName() string { return "LayerScale" }

// KerasModule is the Python module of Keras's class, which a saved
// config names.
func (*LayerScale) KerasModule() string { return "keras.src.applications.convnext" }

// Build creates the per-channel weight.
func (l *LayerScale) Build(inputs []backend.Shape) (backend.Shape, error) {
	if len(inputs) != 1 {
		return nil, fmt.Errorf("expects 1 input, received %d", len(inputs))
	}
	in := inputs[0]
	if len(in) == 0 || in[len(in)-1] != l.ProjectionDim {
		return nil, fmt.Errorf("the input %v must have ProjectionDim (%d) channels on its last axis", in, l.ProjectionDim)
	}
	name := l.weightName
	if name == "" {
		name = "variable"
	}
	var err error
	if l.gamma, err = l.AddWeight(name, backend.Shape{l.ProjectionDim}, initializers.Constant{Value: l.InitValues}); err != nil {
		return nil, err
	}
	return in.Clone(), nil
}

// Call scales the channels.
func (l *LayerScale) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	return ctx.B.Mul(in[0], ctx.Weight(l.gamma))
}

// GetConfig returns Keras's config.
func (l *LayerScale) GetConfig() (serialization.Config, error) {
	return serialization.Config{"init_values": l.InitValues, "projection_dim": l.ProjectionDim}, nil
}

func init() {
	if err := layers.Register("LayerScale", func(r *serialization.Reader) (layers.Layer, error) {
		return &LayerScale{InitValues: r.Float("init_values", 0), ProjectionDim: r.Int("projection_dim", 0)}, nil
	}); err != nil {
		panic(err)
	}
}
