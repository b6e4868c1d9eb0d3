package layers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/initializers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// BatchNormalization normalises its input over the last axis (features or
// channels), like keras.layers.BatchNormalization with axis=-1: in
// training with the batch's mean and (biased) variance, updating moving
// averages of both; at inference with the moving averages. A frozen layer
// (SetTrainable(false)) always runs in inference mode, as in Keras.
//
// Weights, in Keras's order: gamma and beta (trainable, unless Scale or
// Center is off), moving_mean and moving_variance (not trainable).
type BatchNormalization struct {
	// Momentum of the moving averages: moving = moving*Momentum +
	// batch*(1-Momentum). Default 0.99 (PyTorch's momentum 0.01).
	Momentum float64
	Epsilon  float64 // added to the variance; default 1e-3
	NoCenter bool    // Keras's center=False: no beta
	NoScale  bool    // Keras's scale=False: no gamma
	// Axis is the features axis: 0 or -1 means the last, as Keras's
	// default axis=-1; a positive index must also be the last axis (as
	// keras.applications write axis=3 for images), checked at Build.
	Axis int
	GammaBetaPenalties
	Base
	affine

	movingMean, movingVar *Weight
}

// ClassName returns "BatchNormalization".
func (l *BatchNormalization) ClassName() string { return "BatchNormalization" }

func (l *BatchNormalization) momentum() float64 {
	if l.Momentum == 0 {
		return 0.99
	}
	return l.Momentum
}

func (l *BatchNormalization) epsilon() float64 { return epsilonOr(l.Epsilon) }

func (l *BatchNormalization) axis() int {
	if l.Axis == 0 {
		return -1
	}
	return l.Axis
}

// Build creates the weights, one value per feature of the last axis.
func (l *BatchNormalization) Build(inputs []backend.Shape) (backend.Shape, error) {
	in, err := one(inputs)
	if err != nil {
		return nil, err
	}
	if err := checkFeatures(in, l.epsilon()); err != nil {
		return nil, err
	}
	if l.Axis > 0 && l.Axis != len(in)-1 || l.Axis < -1 {
		return nil, fmt.Errorf("axis %d is not the last axis of an input of shape %v: kerasgo normalises over the last axis only (axis=-1 or %d)", l.Axis, in, len(in)-1)
	}
	if m := l.momentum(); m < 0 || m >= 1 {
		return nil, fmt.Errorf("momentum must be in [0, 1), got %v", m)
	}
	s := backend.Shape{in[len(in)-1]}
	if err := l.affine.build(&l.Base, s[0], l.NoScale, l.NoCenter, l.GammaBetaPenalties); err != nil {
		return nil, err
	}
	if l.movingMean, err = l.AddWeight("moving_mean", s, initializers.Constant{}); err != nil {
		return nil, err
	}
	if l.movingVar, err = l.AddWeight("moving_variance", s, initializers.Constant{Value: 1}); err != nil {
		return nil, err
	}
	l.movingMean.Trainable, l.movingVar.Trainable = false, false
	return in.Clone(), nil
}

// castsInputs makes the layer compute in float32 under a
// reduced-precision policy, rounding only its outputs, as Keras's does;
// Keras casts its float inputs to the compute dtype first (autocast=True).
func (l *BatchNormalization) castsInputs() bool { return true }

// Call normalises x; in training it assigns the new moving averages.
func (l *BatchNormalization) Call(ctx *Context, inputs []backend.Value) backend.Value {
	b, x := ctx.B, inputs[0]
	if ctx.Training && l.Trainable() {
		gamma, beta := l.gammaBeta(ctx)
		y, mean, variance := b.BatchNormalize(x, gamma, beta, l.epsilon())
		m := l.momentum()
		ctx.Assign(l.movingMean, b.Add(b.Mul(ctx.Weight(l.movingMean), b.Scalar(m)), b.Mul(mean, b.Scalar(1-m))))
		ctx.Assign(l.movingVar, b.Add(b.Mul(ctx.Weight(l.movingVar), b.Scalar(m)), b.Mul(variance, b.Scalar(1-m))))
		return y
	}
	mean, variance := ctx.Weight(l.movingMean), ctx.Weight(l.movingVar)
	return l.normalize(ctx, b.Sub(x, mean), variance, l.epsilon())
}

// GetConfig returns Keras's BatchNormalization config.
func (l *BatchNormalization) GetConfig() (serialization.Config, error) {
	init := initializerObject
	return affineConfig(serialization.Config{
		"axis": l.axis(), "momentum": l.momentum(), "epsilon": l.epsilon(),
		"moving_mean_initializer": init("zeros"), "moving_variance_initializer": init("ones"),
		"synchronized": false,
	}, l.NoScale, l.NoCenter, l.GammaBetaPenalties)
}

func init() {
	mustRegister("BatchNormalization", func(r *serialization.Reader) (Layer, error) {
		l := &BatchNormalization{Momentum: r.Float("momentum", 0.99), Epsilon: r.Float("epsilon", 1e-3),
			NoCenter: !r.Bool("center", true), NoScale: !r.Bool("scale", true)}
		if axis, ok := r.Value("axis"); ok {
			if list, isList := axis.([]any); isList && len(list) == 1 {
				axis = list[0]
			}
			f, isNum := axis.(float64)
			if !isNum || f != math.Trunc(f) || f == 0 || f < -1 {
				r.Fail("axis", "%v: kerasgo normalises over the last axis only (axis=-1, or its positive index)", axis)
			}
			l.Axis = int(f)
		}
		for key, want := range map[string]string{"beta_initializer": "zeros", "gamma_initializer": "ones", "moving_mean_initializer": "zeros", "moving_variance_initializer": "ones"} {
			if got := readInitializer(r, key); got != "" && got != want {
				r.Fail(key, "%s is not supported by kerasgo (only %s)", got, want)
			}
		}
		l.GammaBetaPenalties = readGammaBetaPenalties(r)
		for _, key := range []string{"virtual_batch_size", "adjustment"} {
			r.ExpectNull(key)
		}
		// Keras 3.13 on writes its batch renormalisation settings, off by
		// default; kerasgo has none.
		r.Expect("renorm", false, "kerasgo has no batch renormalization")
		r.Ignore("renorm_clipping", "renorm_momentum")
		r.Expect("synchronized", false, "")
		return l, nil
	})
}

func (*BatchNormalization) takesUnknownDims() {}
