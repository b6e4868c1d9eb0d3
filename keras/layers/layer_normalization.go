package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
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
	Base

	gamma, beta *Weight
}

// ClassName returns "LayerNormalization".
func (*LayerNormalization) ClassName() string { return "LayerNormalization" }

func (l *LayerNormalization) epsilon() float64 {
	if l.Epsilon == 0 {
		return 1e-3
	}
	return l.Epsilon
}

// Build creates gamma and beta, one value per feature of the last axis.
func (l *LayerNormalization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if len(in) < 2 || in[len(in)-1] <= 0 {
		return nil, fmt.Errorf("expected an input of shape (batch, ..., features), received %v", in)
	}
	if l.epsilon() <= 0 {
		return nil, fmt.Errorf("epsilon must be positive, got %v", l.Epsilon)
	}
	s := backend.Shape{in[len(in)-1]}
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

// Call normalises.
func (l *LayerNormalization) Call(ctx *Context, in []backend.Value) backend.Value {
	b, x := ctx.B, in[0]
	keep := x.Shape().Clone()
	keep[len(keep)-1] = 1
	last := len(keep) - 1
	mean := b.Reshape(b.Mean(x, last), keep)
	centred := b.Sub(x, mean)
	variance := b.Reshape(b.Mean(b.Square(centred), last), keep)
	y := b.Div(centred, b.Sqrt(b.Add(variance, b.Scalar(l.epsilon()))))
	if l.gamma != nil {
		y = b.Mul(y, ctx.Weight(l.gamma))
	}
	if l.beta != nil {
		y = b.Add(y, ctx.Weight(l.beta))
	}
	return y
}

// GetConfig returns Keras's config.
func (l *LayerNormalization) GetConfig() (serialization.Config, error) {
	return serialization.Config{"axis": -1, "epsilon": l.epsilon(), "center": !l.NoCenter, "scale": !l.NoScale, "rms_scaling": false,
		"beta_initializer": initializerObject("zeros"), "gamma_initializer": initializerObject("ones"),
		"beta_regularizer": nil, "gamma_regularizer": nil, "beta_constraint": nil, "gamma_constraint": nil}, nil
}

func init() {
	mustRegister("LayerNormalization", func(r *serialization.Reader) (Layer, error) {
		l := &LayerNormalization{Epsilon: r.Float("epsilon", 1e-3), NoCenter: !r.Bool("center", true), NoScale: !r.Bool("scale", true)}
		if axis, ok := r.Value("axis"); ok {
			if list, isList := axis.([]any); isList && len(list) == 1 {
				axis = list[0]
			}
			if f, isNum := axis.(float64); !isNum || f != -1 {
				r.Fail("axis", "kerasgo normalises over the last axis only (axis=-1), got %v", axis)
			}
		}
		r.Expect("rms_scaling", false, "")
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
