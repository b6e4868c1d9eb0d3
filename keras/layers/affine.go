package layers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/constraints"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/regularizers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// affine is what BatchNormalization, LayerNormalization and
// GroupNormalization share: a learned scale (gamma, unless NoScale) and
// offset (beta, unless NoCenter) per feature of the last axis, applied
// after normalising.
type affine struct {
	gamma, beta *Weight
}

// GammaBetaPenalties are the regularizers and constraints of a
// normalisation layer's scale (gamma) and offset (beta): Keras's
// gamma_regularizer, beta_regularizer, gamma_constraint and
// beta_constraint. BatchNormalization, LayerNormalization and
// GroupNormalization embed them.
type GammaBetaPenalties struct {
	GammaRegularizer, BetaRegularizer regularizers.Regularizer
	GammaConstraint, BetaConstraint   constraints.Constraint
}

// build creates gamma and beta for n features, with their penalties.
func (a *affine) build(base *Base, n int, noScale, noCenter bool, p GammaBetaPenalties) error {
	s := backend.Shape{n}
	var err error
	if noScale && (p.GammaRegularizer != nil || p.GammaConstraint != nil) {
		return fmt.Errorf("a gamma regularizer or constraint was given with scale=False (NoScale): drop it, or keep gamma")
	}
	if noCenter && (p.BetaRegularizer != nil || p.BetaConstraint != nil) {
		return fmt.Errorf("a beta regularizer or constraint was given with center=False (NoCenter): drop it, or keep beta")
	}
	if !noScale {
		if a.gamma, err = base.AddWeight("gamma", s, initializers.Constant{Value: 1}); err != nil {
			return err
		}
		if err := regularize(a.gamma, "gamma", p.GammaRegularizer, p.GammaConstraint); err != nil {
			return err
		}
	}
	if !noCenter {
		if a.beta, err = base.AddWeight("beta", s, initializers.Constant{}); err != nil {
			return err
		}
		return regularize(a.beta, "beta", p.BetaRegularizer, p.BetaConstraint)
	}
	return nil
}

// normalize is (centred / sqrt(variance + eps)) * gamma + beta.
func (a *affine) normalize(ctx *Context, centred, variance backend.Value, eps float64) backend.Value {
	b := ctx.B
	return a.scaleOffset(ctx, b.Div(centred, b.Sqrt(b.Add(variance, b.Scalar(eps)))))
}

// gammaBeta returns the layer's gamma and beta values, nil where the
// layer has none.
func (a *affine) gammaBeta(ctx *Context) (gamma, beta backend.Value) {
	if a.gamma != nil {
		gamma = ctx.Weight(a.gamma)
	}
	if a.beta != nil {
		beta = ctx.Weight(a.beta)
	}
	return gamma, beta
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
func affineConfig(cfg serialization.Config, noScale, noCenter bool, p GammaBetaPenalties) (serialization.Config, error) {
	cfg["center"], cfg["scale"] = !noCenter, !noScale
	cfg["beta_initializer"], cfg["gamma_initializer"] = initializerObject("zeros"), initializerObject("ones")
	err := penaltiesConfig(cfg, map[string]regularizers.Regularizer{"gamma": p.GammaRegularizer, "beta": p.BetaRegularizer},
		map[string]constraints.Constraint{"gamma": p.GammaConstraint, "beta": p.BetaConstraint})
	return cfg, err
}

// readGammaBetaPenalties reads what affineConfig writes of them.
func readGammaBetaPenalties(r *serialization.Reader) GammaBetaPenalties {
	return GammaBetaPenalties{GammaRegularizer: readRegularizer(r, "gamma_regularizer"), BetaRegularizer: readRegularizer(r, "beta_regularizer"),
		GammaConstraint: readConstraint(r, "gamma_constraint"), BetaConstraint: readConstraint(r, "beta_constraint")}
}

// readAffine reads what affineConfig writes, and a last-axis axis.
func readAffine(r *serialization.Reader) (noScale, noCenter bool, p GammaBetaPenalties) {
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
	return noScale, noCenter, readGammaBetaPenalties(r)
}
