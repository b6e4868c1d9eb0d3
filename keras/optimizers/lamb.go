package optimizers

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// Lamb is keras.optimizers.Lamb (You et al., 2019), Adam with a
// layer-wise trust ratio for large-batch training: each weight tensor's
// Adam step is rescaled by ‖weight‖ / ‖step‖ (1 when either is 0).
type Lamb struct {
	LearningRate float64 // default 0.001
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate.
	Schedule schedules.LearningRateSchedule
	Beta1    float64 // default 0.9
	Beta2    float64 // default 0.999
	Epsilon  float64 // default 1e-7
	Options
}

// NewLamb returns Lamb with every setting as given, zeros included.
func NewLamb(learningRate, beta1, beta2, epsilon float64) *Lamb {
	return &Lamb{LearningRate: learningRate, Beta1: beta1, Beta2: beta2, Epsilon: epsilon, Options: Options{exact: true}}
}

// Name returns "lamb".
func (*Lamb) Name() string { return "lamb" }

func (o *Lamb) rate() (*float64, *schedules.LearningRateSchedule, float64) {
	return &o.LearningRate, &o.Schedule, 0.001
}

func (o *Lamb) resolve() { o.resolveAdamLike(&o.Beta1, &o.Beta2, &o.Epsilon) }

// State declares a momentum and a velocity per parameter, as Keras.
func (o *Lamb) State(params []backend.Shape) []StateSpec { return slots(params, "m", "v") }

// Update implements Keras 3's rule, t being the update count plus one:
// m += (g-m)(1-β1); v += (g²-v)(1-β2);
// u = (m/(1-β1^t)) / (sqrt(v/(1-β2^t)) + ε); p -= ratio·lr·u with
// ratio = ‖p‖/‖u‖.
func (o *Lamb) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	b1, b2, eps := o.or(o.Beta1, 0.9), o.or(o.Beta2, 0.999), o.or(o.Epsilon, 1e-7)
	n := len(params)
	one := b.Scalar(1)
	t := b.Add(hp.Iteration, one)
	b1Power, b2Power := powerAt(b, b1, t), powerAt(b, b2, t)
	newP, newS := make([]backend.Value, n), make([]backend.Value, len(state))
	for i, p := range params {
		g, m, v := grads[i], state[i], state[n+i]
		m = b.Add(m, b.Mul(b.Sub(g, m), b.Scalar(1-b1)))
		v = b.Add(v, b.Mul(b.Sub(b.Square(g), v), b.Scalar(1-b2)))
		update := b.Div(b.Div(m, b.Sub(one, b1Power)), b.Add(b.Sqrt(b.Div(v, b.Sub(one, b2Power))), b.Scalar(eps)))
		newP[i] = b.Sub(p, b.Mul(b.Mul(trustRatio(b, p, update), hp.LearningRate), update))
		newS[i], newS[n+i] = m, v
	}
	return newP, newS
}

// powerAt is base^t for a scalar t, as exp(t·ln base) (base > 0), or 0
// for base 0.
func powerAt(b backend.Builder, base float64, t backend.Value) backend.Value {
	if base == 0 {
		return b.Mul(t, b.Scalar(0))
	}
	return b.Exp(b.Mul(t, b.Scalar(math.Log(base))))
}

// trustRatio is ‖p‖/‖u‖, or 1 when either norm is 0 (Keras's Lamb).
func trustRatio(b backend.Builder, p, u backend.Value) backend.Value {
	zero, one := b.Scalar(0), b.Scalar(1)
	pNorm, uNorm := b.Sqrt(b.Sum(b.Square(p))), b.Sqrt(b.Sum(b.Square(u)))
	both := b.Mul(b.Greater(pNorm, zero), b.Greater(uNorm, zero))
	return b.Add(b.Mul(both, b.Div(pNorm, b.Add(uNorm, b.Sub(one, both)))), b.Sub(one, both))
}
