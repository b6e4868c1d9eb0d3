package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// TimeDistributed applies a layer to every time step of a sequence, like
// keras.layers.TimeDistributed: an input (batch, steps, ...) is folded to
// (batch*steps, ...), given to Layer, and unfolded, so every step shares
// Layer's weights.
//
//	layers.Apply(&layers.TimeDistributed{Layer: &layers.Dense{Units: 8}}, seq)
type TimeDistributed struct {
	Layer Layer
	Base

	built backend.Shape
	out   backend.Shape
}

// ClassName returns "TimeDistributed".
func (*TimeDistributed) ClassName() string { return "TimeDistributed" }

// Build builds the inner layer on one step's shape.
func (l *TimeDistributed) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if l.built != nil {
		if !in.Equal(l.built) {
			return nil, fmt.Errorf("was built for input %v, cannot be applied to %v", l.built, in)
		}
		return l.out.Clone(), nil
	}
	if l.Layer == nil {
		return nil, fmt.Errorf("has no layer to apply")
	}
	if len(in) < 3 || in[1] == 0 {
		return nil, fmt.Errorf("expected an input of shape (batch, steps, ...), received %v", in)
	}
	step := append(backend.Shape{in[0]}, in[2:]...)
	if l.Layer.Common().Name == "" {
		l.Layer.Common().Name = serialization.SnakeCase(l.Layer.ClassName())
	}
	out, err := l.Layer.Build([]backend.Shape{step})
	if err != nil {
		return nil, fmt.Errorf("layer %s: %w", Describe(l.Layer), err)
	}
	l.weights = l.Layer.Common().Weights()
	l.built = in.Clone()
	l.out = append(backend.Shape{in[0], in[1]}, out[1:]...)
	return l.out.Clone(), nil
}

// Call folds the steps into the batch, applies the layer and unfolds.
func (l *TimeDistributed) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	s := x.Shape()
	folded := b.Reshape(x, append(backend.Shape{s[0] * s[1]}, s[2:]...))
	y := l.Layer.Call(ctx.WithMasks(nil), []backend.Value{folded})
	ys := y.Shape()
	return b.Reshape(y, append(backend.Shape{s[0], s[1]}, ys[1:]...))
}

// ComputeMask passes the input's mask on (Keras's TimeDistributed keeps
// the steps).
func (l *TimeDistributed) ComputeMask(_ *Context, _, m []backend.Value) backend.Value {
	return firstMask(m)
}

// SavedGroups keeps the inner layer's variables under "layer", as Keras.
func (l *TimeDistributed) SavedGroups() []SavedGroup {
	if g, ok := l.Layer.(SavedGrouper); ok {
		var out []SavedGroup
		for _, sg := range g.SavedGroups() {
			out = append(out, SavedGroup{Path: "layer/" + sg.Path, Weights: sg.Weights})
		}
		return out
	}
	return []SavedGroup{{Path: "layer", Weights: l.Layer.Common().Weights()}}
}

// GetConfig returns Keras's config: the wrapped layer.
func (l *TimeDistributed) GetConfig() (serialization.Config, error) {
	if l.Layer == nil {
		return nil, fmt.Errorf("has no layer to apply")
	}
	o, err := Object(l.Layer)
	return serialization.Config{"layer": o}, err
}

func init() {
	mustRegister("TimeDistributed", func(r *serialization.Reader) (Layer, error) {
		inner, err := ReadWrapped(r)
		if err != nil {
			return nil, err
		}
		return &TimeDistributed{Layer: inner}, nil
	})
}

func (*TimeDistributed) takesUnknownDims() {}
