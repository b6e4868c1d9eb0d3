package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// AdditiveAttention is Bahdanau-style attention, like
// keras.layers.AdditiveAttention: scores = Σ scale*tanh(query + key), with
// a learned per-dim Scale (UseScale, Keras's default; set NoScale to drop
// it).
type AdditiveAttention struct {
	NoScale bool
	denseAttention

	scale *Weight
}

// ClassName returns "AdditiveAttention".
func (*AdditiveAttention) ClassName() string { return "AdditiveAttention" }

// Build checks the inputs and creates the scale (dim), initialised as
// Keras's glorot_uniform.
func (a *AdditiveAttention) Build(inputs []backend.Shape) (backend.Shape, error) {
	out, err := a.build(inputs)
	if err != nil {
		return nil, err
	}
	if !a.NoScale {
		if a.scale, err = a.AddWeight("scale", backend.Shape{inputs[0][2]}, initializers.GlorotUniform{}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Call computes the scores and attends.
func (a *AdditiveAttention) Call(ctx *Context, in []backend.Value) backend.Value {
	b := ctx.B
	t := b.Tanh(pairSums(b, in[0], key(in)))
	if a.scale != nil {
		t = b.Mul(t, ctx.Weight(a.scale))
	}
	return a.attend(ctx, in, b.Sum(t, 3))
}

// GetConfig returns Keras's config.
func (a *AdditiveAttention) GetConfig() (serialization.Config, error) {
	return serialization.Config{"use_scale": !a.NoScale, "dropout": a.Dropout}, nil
}

func init() {
	mustRegister("AdditiveAttention", func(r *serialization.Reader) (Layer, error) {
		a := &AdditiveAttention{NoScale: !r.Bool("use_scale", true)}
		a.Dropout = r.Float("dropout", 0)
		r.Ignore("seed")
		return a, nil
	})
}

func (*AdditiveAttention) takesUnknownDims() {}
