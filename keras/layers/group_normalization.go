package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// GroupNormalization normalises each sample over groups of channels (the
// last axis split into Groups), like keras.layers.GroupNormalization: the
// mean and (biased) variance of a group over all its positions and
// channels, then a per-channel gamma and beta.
type GroupNormalization struct {
	Groups   int     // default 32; must divide the channels
	Epsilon  float64 // default 1e-3
	NoCenter bool    // Keras's center=False: no beta
	NoScale  bool    // Keras's scale=False: no gamma
	GammaBetaPenalties
	Base
	affine
}

// ClassName returns "GroupNormalization".
func (*GroupNormalization) ClassName() string { return "GroupNormalization" }

func (l *GroupNormalization) groups() int {
	if l.Groups == 0 {
		return 32
	}
	return l.Groups
}

// Build checks the groups and creates gamma and beta.
func (l *GroupNormalization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if err := checkFeatures(in, epsilonOr(l.Epsilon)); err != nil {
		return nil, err
	}
	c := in[len(in)-1]
	if g := l.groups(); g < 1 || c%g != 0 {
		return nil, fmt.Errorf("number of groups (%d) must divide the number of channels (%d); Keras's default is 32", g, c)
	}
	return in.Clone(), l.affine.build(&l.Base, c, l.NoScale, l.NoCenter, l.GammaBetaPenalties)
}

// castsInputs makes the layer compute in float32 under a
// reduced-precision policy, rounding only its outputs, as Keras's does;
// Keras takes its inputs as they come (autocast=False).
func (l *GroupNormalization) castsInputs() bool { return false }

// Call normalises each group of each sample: (batch, positions, groups,
// channels per group), statistics over the positions and channels.
func (l *GroupNormalization) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	s := x.Shape()
	g, c := l.groups(), s[len(s)-1]
	grouped := b.Reshape(x, backend.Shape{s[0], s.Size() / s[0] / c, g, c / g})
	keep := backend.Shape{s[0], 1, g, 1}
	centred := b.Sub(grouped, b.Reshape(b.Mean(grouped, 1, 3), keep))
	variance := b.Reshape(b.Mean(b.Square(centred), 1, 3), keep)
	y := b.Div(centred, b.Sqrt(b.Add(variance, b.Scalar(epsilonOr(l.Epsilon)))))
	return l.scaleOffset(ctx, b.Reshape(y, s))
}

// GetConfig returns Keras's config.
func (l *GroupNormalization) GetConfig() (serialization.Config, error) {
	return affineConfig(serialization.Config{"groups": l.groups(), "axis": -1, "epsilon": epsilonOr(l.Epsilon)}, l.NoScale, l.NoCenter, l.GammaBetaPenalties)
}

func init() {
	mustRegister("GroupNormalization", func(r *serialization.Reader) (Layer, error) {
		l := &GroupNormalization{Groups: r.PositiveInt("groups", 32), Epsilon: r.Float("epsilon", 1e-3)}
		l.NoScale, l.NoCenter, l.GammaBetaPenalties = readAffine(r)
		return l, nil
	})
}

func (*GroupNormalization) takesUnknownDims() {}
