package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// affine is what BatchNormalization, LayerNormalization and
// GroupNormalization share: a learned scale (gamma, unless NoScale) and
// offset (beta, unless NoCenter) per feature of the last axis, applied
// after normalising.
type affine struct {
	gamma, beta *Weight
}

// build creates gamma and beta for n features.
func (a *affine) build(base *Base, n int, noScale, noCenter bool) error {
	s := backend.Shape{n}
	var err error
	if !noScale {
		if a.gamma, err = base.AddWeight("gamma", s, initializers.Constant{Value: 1}); err != nil {
			return err
		}
	}
	if !noCenter {
		a.beta, err = base.AddWeight("beta", s, initializers.Constant{})
	}
	return err
}

// normalize is (centred / sqrt(variance + eps)) * gamma + beta.
func (a *affine) normalize(ctx *Context, centred, variance backend.Value, eps float64) backend.Value {
	b := ctx.B
	return a.scaleOffset(ctx, b.Div(centred, b.Sqrt(b.Add(variance, b.Scalar(eps)))))
}

// scaleOffset is y * gamma + beta.
func (a *affine) scaleOffset(ctx *Context, y backend.Value) backend.Value {
	b := ctx.B
	if a.gamma != nil {
		y = b.Mul(y, ctx.Weight(a.gamma))
	}
	if a.beta != nil {
		y = b.Add(y, ctx.Weight(a.beta))
	}
	return y
}

// epsilonOr is Keras's default epsilon, 1e-3, for a zero one.
func epsilonOr(eps float64) float64 {
	if eps == 0 {
		return 1e-3
	}
	return eps
}

// checkFeatures checks a normalisation layer's input: (batch, ...,
// features) with a positive epsilon.
func checkFeatures(in backend.Shape, eps float64) error {
	if len(in) < 2 || in[len(in)-1] <= 0 {
		return fmt.Errorf("expected an input of shape (batch, ..., features), received %v", in)
	}
	if eps <= 0 {
		return fmt.Errorf("epsilon must be positive, got %v", eps)
	}
	return nil
}

// affineConfig adds the keys of Keras's normalisation configs that
// describe gamma and beta.
func affineConfig(cfg serialization.Config, noScale, noCenter bool) serialization.Config {
	cfg["center"], cfg["scale"] = !noCenter, !noScale
	cfg["beta_initializer"], cfg["gamma_initializer"] = initializerObject("zeros"), initializerObject("ones")
	for _, k := range []string{"beta_regularizer", "gamma_regularizer", "beta_constraint", "gamma_constraint"} {
		cfg[k] = nil
	}
	return cfg
}

// readAffine reads what affineConfig writes, and a last-axis axis.
func readAffine(r *serialization.Reader) (noScale, noCenter bool) {
	noCenter, noScale = !r.Bool("center", true), !r.Bool("scale", true)
	if axis, ok := r.Value("axis"); ok {
		if list, isList := axis.([]any); isList && len(list) == 1 {
			axis = list[0]
		}
		if f, isNum := axis.(float64); !isNum || f != -1 {
			r.Fail("axis", "kerasgo normalises over the last axis only (axis=-1), got %v", axis)
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
	return noScale, noCenter
}
