package applications

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// CustomScaleLayer computes inputs[0] + inputs[1]*Scale: the scaled
// residual connection of InceptionResNetV2, Keras's class of the same
// name in keras.applications.inception_resnet_v2. It is registered with
// kerasgo's layers when this package is imported, so that an
// InceptionResNetV2 saved by Keras (model.save) loads, and one saved by
// kerasgo names Keras's module.
type CustomScaleLayer struct {
	Scale float64
	layers.Base
}

// ClassName returns "CustomScaleLayer".
func (*CustomScaleLayer) ClassName() string { return "CustomScaleLayer" }

// KerasModule is the Python module of Keras's class, which a saved
// config names.
func (*CustomScaleLayer) KerasModule() string { return "keras.src.applications.inception_resnet_v2" }

// Build checks for two inputs of one shape.
func (l *CustomScaleLayer) Build(inputs []backend.Shape) (backend.Shape, error) {
	if len(inputs) != 2 {
		return nil, fmt.Errorf("expects 2 inputs (the shortcut and the residual), received %d", len(inputs))
	}
	if !inputs[0].Equal(inputs[1]) {
		return nil, fmt.Errorf("the shortcut %v and the residual %v must have the same shape", inputs[0], inputs[1])
	}
	return inputs[0].Clone(), nil
}

// Call adds the scaled residual to the shortcut.
func (l *CustomScaleLayer) Call(ctx *layers.Context, in []backend.Value) backend.Value {
	b := ctx.B
	return b.Add(in[0], b.Mul(in[1], b.Scalar(l.Scale)))
}

// GetConfig returns Keras's config: the scale.
func (l *CustomScaleLayer) GetConfig() (serialization.Config, error) {
	return serialization.Config{"scale": l.Scale}, nil
}

func init() {
	if err := layers.Register("CustomScaleLayer", func(r *serialization.Reader) (layers.Layer, error) {
		return &CustomScaleLayer{Scale: r.Float("scale", 1)}, nil
	}); err != nil {
		panic(err)
	}
}
