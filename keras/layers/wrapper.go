package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Wrapper is the base of a layer that wraps another, like
// keras.layers.Wrapper: embed it in a struct of your own, which adds
// ClassName and what the wrapper does. The wrapped Layer is the
// wrapper's one sublayer, saved under "layer" as Keras saves it (its
// weights after the wrapper's own), and its config is the wrapper's
// "layer" entry.
//
// Wrapper's Build builds the wrapped layer on the wrapper's inputs and
// gives its output shape, and its Call applies it: a wrapper that
// changes neither needs only ClassName. As in Keras, Wrapper alone is
// not a layer (it has no ClassName). SpectralNormalization is one.
type Wrapper struct {
	// Layer is the wrapped layer, required.
	Layer Layer
	Base
}

// Sublayers lists the wrapped layer as "layer", Keras's attribute.
func (w *Wrapper) Sublayers() []Sublayer {
	if w.Layer == nil {
		return nil
	}
	bindSelf(w.Layer)
	return []Sublayer{{Path: "layer", Layer: w.Layer}}
}

// Build builds the wrapped layer on inputs and returns its output shape.
func (w *Wrapper) Build(inputs []backend.Shape) (backend.Shape, error) {
	if w.Layer == nil {
		return nil, fmt.Errorf("has no layer to wrap: set its Layer")
	}
	bindSelf(w.Layer)
	if w.Layer.Common().Name == "" {
		w.Layer.Common().Name = serialization.SnakeCase(w.Layer.ClassName())
	}
	out, err := w.Layer.Build(inputs)
	if err != nil {
		return nil, fmt.Errorf("layer %s: %w", Describe(w.Layer), err)
	}
	return out, nil
}

// Call applies the wrapped layer.
func (w *Wrapper) Call(ctx *Context, in []backend.Value) backend.Value {
	return w.Layer.Call(ctx, in)
}

// GetConfig returns Keras's Wrapper config: the wrapped layer under
// "layer". A wrapper with settings of its own adds them to it.
func (w *Wrapper) GetConfig() (serialization.Config, error) {
	if w.Layer == nil {
		return nil, fmt.Errorf("has no layer to wrap: set its Layer")
	}
	o, err := Object(w.Layer)
	return serialization.Config{"layer": o}, err
}

// ReadWrapped reads the wrapped layer of a Keras wrapper's config (its
// "layer"), for the factory of a wrapper registered with
// keras.RegisterLayer.
func ReadWrapped(r *serialization.Reader) (Layer, error) {
	v, _ := r.Value("layer")
	return FromObject(v, "the wrapped layer")
}
