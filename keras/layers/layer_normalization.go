package layers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// LayerNormalization normalises each sample over its last axis, like
// keras.layers.LayerNormalization with axis=-1: (x - mean) /
// sqrt(variance + Epsilon) * gamma + beta, with the sample's own mean and
// (biased) variance, the same in training and inference.
type LayerNormalization struct {
	Epsilon  float64 // default 1e-3
	NoCenter bool    // Keras's center=False: no beta
	NoScale  bool    // Keras's scale=False: no gamma
	GammaBetaPenalties
	Base
	affine
}

// ClassName returns "LayerNormalization".
func (*LayerNormalization) ClassName() string { return "LayerNormalization" }

// Build creates gamma and beta, one value per feature of the last axis.
func (l *LayerNormalization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if err := checkFeatures(in, epsilonOr(l.Epsilon)); err != nil {
		return nil, err
	}
	return in.Clone(), l.affine.build(&l.Base, in[len(in)-1], l.NoScale, l.NoCenter, l.GammaBetaPenalties)
}

// castsInputs makes the layer compute in float32 under a
// reduced-precision policy, rounding only its outputs, as Keras's does;
// Keras takes its inputs as they come (autocast=False).
func (l *LayerNormalization) castsInputs() bool { return false }

// Call normalises.
func (l *LayerNormalization) Call(ctx *Context, in []backend.Value) backend.Value {
	gamma, beta := l.gammaBeta(ctx)
	return ctx.B.LayerNormalize(in[0], gamma, beta, epsilonOr(l.Epsilon))
}

// GetConfig returns Keras's config.
func (l *LayerNormalization) GetConfig() (serialization.Config, error) {
	return affineConfig(serialization.Config{"axis": -1, "epsilon": epsilonOr(l.Epsilon), "rms_scaling": false}, l.NoScale, l.NoCenter, l.GammaBetaPenalties)
}

func init() {
	mustRegister("LayerNormalization", func(r *serialization.Reader) (Layer, error) {
		l := &LayerNormalization{Epsilon: r.Float("epsilon", 1e-3)}
		l.NoScale, l.NoCenter, l.GammaBetaPenalties = readAffine(r)
		r.Expect("rms_scaling", false, "")
		return l, nil
	})
}

func (*LayerNormalization) takesUnknownDims() {}
