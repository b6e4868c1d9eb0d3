package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
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
	Base

	gamma, beta *Weight
}

// ClassName returns "GroupNormalization".
func (*GroupNormalization) ClassName() string { return "GroupNormalization" }

func (l *GroupNormalization) groups() int {
	if l.Groups == 0 {
		return 32
	}
	return l.Groups
}

func (l *GroupNormalization) epsilon() float64 {
	if l.Epsilon == 0 {
		return 1e-3
	}
	return l.Epsilon
}

// Build checks the groups and creates gamma and beta.
func (l *GroupNormalization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) < 2 || in[len(in)-1] <= 0 {
		return nil, fmt.Errorf("expected an input of shape (batch, ..., channels), received %v", in)
	}
	c := in[len(in)-1]
	if g := l.groups(); g < 1 || c%g != 0 {
		return nil, fmt.Errorf("number of groups (%d) must divide the number of channels (%d); Keras's default is 32", g, c)
	}
	if l.epsilon() <= 0 {
		return nil, fmt.Errorf("epsilon must be positive, got %v", l.Epsilon)
	}
	s := backend.Shape{c}
	if !l.NoScale {
		if l.gamma, err = l.AddWeight("gamma", s, initializers.Constant{Value: 1}); err != nil {
			return nil, err
		}
	}
	if !l.NoCenter {
		if l.beta, err = l.AddWeight("beta", s, initializers.Constant{}); err != nil {
			return nil, err
		}
	}
	return in.Clone(), nil
}

// Call normalises each group of each sample.
func (l *GroupNormalization) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	s := x.Shape()
	g := l.groups()
	n, per := s[0], s.Size()/s[0]/g
	c := s[len(s)-1]
	// (batch, positions, groups, channels per group) -> statistics over
	// the positions and the channels of each group.
	grouped := b.Reshape(x, backend.Shape{n, per / (c / g), g, c / g})
	keep := backend.Shape{n, 1, g, 1}
	mean := b.Reshape(b.Mean(grouped, 1, 3), keep)
	centred := b.Sub(grouped, mean)
	variance := b.Reshape(b.Mean(b.Square(centred), 1, 3), keep)
	y := b.Reshape(b.Div(centred, b.Sqrt(b.Add(variance, b.Scalar(l.epsilon())))), s)
	if l.gamma != nil {
		y = b.Mul(y, ctx.Weight(l.gamma))
	}
	if l.beta != nil {
		y = b.Add(y, ctx.Weight(l.beta))
	}
	return y
}

// GetConfig returns Keras's config.
func (l *GroupNormalization) GetConfig() (serialization.Config, error) {
	return serialization.Config{"groups": l.groups(), "axis": -1, "epsilon": l.epsilon(), "center": !l.NoCenter, "scale": !l.NoScale,
		"beta_initializer": initializerObject("zeros"), "gamma_initializer": initializerObject("ones"),
		"beta_regularizer": nil, "gamma_regularizer": nil, "beta_constraint": nil, "gamma_constraint": nil}, nil
}

func init() {
	mustRegister("GroupNormalization", func(r *serialization.Reader) (Layer, error) {
		l := &GroupNormalization{Groups: r.Int("groups", 32), Epsilon: r.Float("epsilon", 1e-3), NoCenter: !r.Bool("center", true), NoScale: !r.Bool("scale", true)}
		if axis, ok := r.Value("axis"); ok {
			if f, isNum := axis.(float64); !isNum || f != -1 {
				r.Fail("axis", "kerasgo groups the last axis only (axis=-1), got %v", axis)
			}
		}
		for key, want := range map[string]string{"beta_initializer": "zeros", "gamma_initializer": "ones"} {
			if got := readInitializer(r, key); got != "" && got != want {
				r.Fail(key, "%s is not supported by kerasgo (only %s)", got, want)
			}
		}
		for _, k := range []string{"beta_regularizer", "gamma_regularizer", "beta_constraint", "gamma_constraint"} {
			r.ExpectNull(k)
		}
		return l, nil
	})
}
