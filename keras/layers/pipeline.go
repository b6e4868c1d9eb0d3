package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Pipeline applies its layers one after another, like
// keras.layers.Pipeline: a chain of preprocessing layers, often
// augmentations, as one layer. Each layer gets the model's training mode
// (Keras calls a Pipeline with training=True by default, as its layers).
// Its layers' variables are saved under the Pipeline, as Keras tracks
// them ("layers/pipeline/layers/dense").
//
//	aug := &layers.Pipeline{Layers: []layers.Layer{
//		&layers.RandomFlip{}, &layers.RandomGrayscale{Factor: 0.2},
//	}}
type Pipeline struct {
	Layers []Layer
	Base
}

// ClassName returns "Pipeline".
func (*Pipeline) ClassName() string { return "Pipeline" }

// Build builds each layer on the previous one's output shape.
func (l *Pipeline) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	out, err := l.BuildImageData(ImageDataShapes{Images: in})
	return out.Images, err
}

// BuildImageData builds each layer for the previous one's output, images
// alone or with their boxes and labels.
func (l *Pipeline) BuildImageData(in ImageDataShapes) (ImageDataShapes, error) {
	if len(l.Layers) == 0 {
		return in, fmt.Errorf("has no layers: give Layers")
	}
	used := map[string]int{}
	s := in
	for i, sub := range l.Layers {
		if sub == nil {
			return in, fmt.Errorf("layer %d is nil", i)
		}
		if sub.Common().Name == "" {
			sub.Common().Name = serialization.UniqueName(serialization.SnakeCase(PythonClassName(sub)), used)
		}
		var err error
		if s, err = buildImageData(sub, s); err != nil {
			return in, fmt.Errorf("layer %s: %w", Describe(sub), err)
		}
	}
	return s, nil
}

// Call applies the layers in turn.
func (l *Pipeline) Call(ctx *Context, in []backend.Value) backend.Value {
	return l.CallImageData(ctx, ImageData{Images: in[0]}).Images
}

// CallImageData applies the layers in turn to the images and what goes
// with them.
func (l *Pipeline) CallImageData(ctx *Context, d ImageData) ImageData {
	inner := ctx.WithMasks(nil)
	for _, sub := range l.Layers {
		d = callImageData(inner, sub, d)
	}
	return d
}

// GetConfig returns Keras's config: the layers, serialized.
func (l *Pipeline) GetConfig() (serialization.Config, error) {
	list := make([]any, len(l.Layers))
	for i, sub := range l.Layers {
		if sub == nil {
			return nil, fmt.Errorf("layer %d is nil", i)
		}
		c, err := Config(sub)
		if err != nil {
			return nil, fmt.Errorf("layer %s: %w", Describe(sub), err)
		}
		list[i] = serialization.NewObject("keras.layers", PythonClassName(sub), c)
	}
	return serialization.Config{"layers": list}, nil
}

// nameOnlyConfig: Keras's Pipeline config is its name and layers (its
// constructor takes no trainable or dtype).
func (*Pipeline) nameOnlyConfig() {}

// takesUnknownDims: a Pipeline takes what its first layer takes; each
// layer's Build checks it.
func (*Pipeline) takesUnknownDims() {}

// trainsByDefault: Keras calls a Pipeline with training=True by default.
func (*Pipeline) trainsByDefault() {}

func init() {
	mustRegister("Pipeline", func(r *serialization.Reader) (Layer, error) {
		v, _ := r.Value("layers")
		list, ok := v.([]any)
		if !ok {
			r.Fail("layers", "want a list of serialized layers, got %v", v)
			return nil, nil
		}
		l := &Pipeline{}
		for i, item := range list {
			class, cfg, ok := serialization.ClassOrName(item)
			if !ok || cfg == nil {
				return nil, fmt.Errorf("cannot read the pipeline's layer %d: %v", i, item)
			}
			sub, err := FromConfig(class, cfg)
			if err != nil {
				return nil, fmt.Errorf("the pipeline's layer %d (%s): %w", i, class, err)
			}
			l.Layers = append(l.Layers, sub)
		}
		return l, nil
	})
}
