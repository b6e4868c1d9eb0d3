package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

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

// Keras 3 builds Reshape in its constructor: its files hold no build_config.
func (r *Reshape) withoutBuildConfig() {}

// GetConfig returns Keras's Reshape config.
func (r *Reshape) GetConfig() (serialization.Config, error) {
	return serialization.Config{"target_shape": r.TargetShape}, nil
}

func init() {
	mustRegister("Reshape", func(r *serialization.Reader) (Layer, error) {
		return &Reshape{TargetShape: r.Dims("target_shape")}, nil
	})
}
