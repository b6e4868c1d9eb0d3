package optimizers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// Adamax is Adam with the infinity norm in place of the second moment,
// keras.optimizers.Adamax.
type Adamax struct {
	LearningRate float64 // default 0.001
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate.
	Schedule schedules.LearningRateSchedule
	Beta1    float64 // default 0.9
	Beta2    float64 // default 0.999
	Epsilon  float64 // default 1e-7
	Options
}

// NewAdamax returns Adamax with every setting as given, zeros included.
func NewAdamax(learningRate, beta1, beta2, epsilon float64) *Adamax {
	return &Adamax{LearningRate: learningRate, Beta1: beta1, Beta2: beta2, Epsilon: epsilon, Options: Options{exact: true}}
}

// Name returns "adamax".
func (*Adamax) Name() string { return "adamax" }

func (o *Adamax) rate() (*float64, *schedules.LearningRateSchedule, float64) {
	return &o.LearningRate, &o.Schedule, 0.001
}

func (o *Adamax) resolve() {
	o.resolveAdamLike(&o.Beta1, &o.Beta2, &o.Epsilon)
}

// State declares beta1^t and, per parameter, the first moment and the
// exponentially weighted infinity norm.
func (o *Adamax) State(params []backend.Shape) []StateSpec {
	return append([]StateSpec{power("beta1_power", o.or(o.Beta1, 0.9))}, slots(params, "momentum", "norm")...)
}

// Update implements Keras 3's rule: m += (g-m)(1-beta1);
// u = max(beta2*u, |g|); p -= lr*m/((1-beta1^t)(u+eps)).
func (o *Adamax) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	b1, b2, eps := o.or(o.Beta1, 0.9), o.or(o.Beta2, 0.999), b.Scalar(o.or(o.Epsilon, 1e-7))
	n := len(params)
	b1p := b.Mul(state[0], b.Scalar(b1))
	step := b.Div(hp.LearningRate, b.Sub(b.Scalar(1), b1p))
	newP := make([]backend.Value, n)
	newS := make([]backend.Value, len(state))
	newS[0] = b1p
	for i, p := range params {
		g := grads[i]
		m := b.Add(state[1+i], b.Mul(b.Sub(g, state[1+i]), b.Scalar(1-b1)))
		u := b.Maximum(b.Mul(state[1+n+i], b.Scalar(b2)), b.Maximum(g, b.Neg(g)))
		newS[1+i], newS[1+n+i] = m, u
		newP[i] = b.Sub(p, b.Div(b.Mul(m, step), b.Add(u, eps)))
	}
	return newP, newS
}
