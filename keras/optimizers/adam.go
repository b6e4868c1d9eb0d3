package optimizers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// Adam is Kingma and Ba's optimizer with Keras's defaults,
// keras.optimizers.Adam.
type Adam struct {
	LearningRate float64 // default 0.001
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate.
	Schedule schedules.LearningRateSchedule
	Beta1    float64 // default 0.9
	Beta2    float64 // default 0.999
	Epsilon  float64 // default 1e-7
	// AMSGrad divides by the largest second moment seen so far (Reddi et
	// al.), Keras's amsgrad=True.
	AMSGrad bool
	Options
}

// NewAdam returns Adam with every setting as given, zeros included
// (Beta1 0 is common in GAN training).
func NewAdam(learningRate, beta1, beta2, epsilon float64) *Adam {
	return &Adam{LearningRate: learningRate, Beta1: beta1, Beta2: beta2, Epsilon: epsilon, Options: Options{exact: true}}
}

// Name returns "adam".
func (*Adam) Name() string { return "adam" }

func (o *Adam) rate() (*float64, *schedules.LearningRateSchedule, float64) {
	return &o.LearningRate, &o.Schedule, 0.001
}

func (o *Adam) resolve() {
	o.resolveAdamLike(&o.Beta1, &o.Beta2, &o.Epsilon)
}

// State declares beta1^t and beta2^t (scalars, starting at 1) and the first
// and second moments of every parameter (with AMSGrad, also the largest
// second moment).
func (o *Adam) State(params []backend.Shape) []StateSpec {
	return adamState(params, o.or(o.Beta1, 0.9), o.or(o.Beta2, 0.999), o.AMSGrad)
}

func adamState(params []backend.Shape, b1, b2 float64, amsgrad bool) []StateSpec {
	out := append([]StateSpec{power("beta1_power", b1), power("beta2_power", b2)}, slots(params, "m", "v")...)
	if amsgrad {
		out = append(out, groupSlots(params, 1, 2, "v_hat")...)
	}
	return out
}

// Update implements Keras 3's rule:
// alpha = lr*sqrt(1-beta2^t)/(1-beta1^t); m += (g-m)(1-beta1);
// v += (g²-v)(1-beta2); p -= alpha*m/(sqrt(v)+eps), with AMSGrad
// v_hat = max(v_hat, v) in place of v in the last.
func (o *Adam) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	return adamUpdate(b, hp, o.or(o.Beta1, 0.9), o.or(o.Beta2, 0.999), o.or(o.Epsilon, 1e-7), o.AMSGrad, params, grads, state)
}

func adamUpdate(b backend.Builder, hp Hyperparameters, b1, b2, eps float64, amsgrad bool, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	if amsgrad {
		return amsgradUpdate(b, hp, b1, b2, eps, params, grads, state)
	}
	n := len(params)
	newP := make([]backend.Value, n)
	newS := make([]backend.Value, len(state))
	alpha := adamStepSize(b, hp, b1, b2, state, newS)
	for i, p := range params {
		newP[i], newS[2+i], newS[2+n+i] = b.AdamUpdate(p, grads[i], state[2+i], state[2+n+i], alpha, b1, b2, eps)
	}
	return newP, newS
}

// amsgradUpdate is Adam's rule with AMSGrad (Keras's amsgrad=True), in
// plain ops: the fused AdamUpdate has no v_hat.
func amsgradUpdate(b backend.Builder, hp Hyperparameters, b1, b2, eps float64, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	n := len(params)
	newP := make([]backend.Value, n)
	newS := make([]backend.Value, len(state))
	alpha := adamStepSize(b, hp, b1, b2, state, newS)
	for i, p := range params {
		g, m, v, vHat := grads[i], state[2+i], state[2+n+i], state[2+2*n+i]
		m = b.Add(m, b.Mul(b.Sub(g, m), b.Scalar(1-b1)))
		v = b.Add(v, b.Mul(b.Sub(b.Square(g), v), b.Scalar(1-b2)))
		vHat = b.Maximum(vHat, v)
		newP[i] = b.Sub(p, b.Div(b.Mul(m, alpha), b.Add(b.Sqrt(vHat), b.Scalar(eps))))
		newS[2+i], newS[2+n+i], newS[2+2*n+i] = m, v, vHat
	}
	return newP, newS
}

// adamStepSize advances beta1^t and beta2^t (state[0], state[1], written
// to newS) and returns Adam's step size lr*sqrt(1-beta2^t)/(1-beta1^t).
func adamStepSize(b backend.Builder, hp Hyperparameters, b1, b2 float64, state, newS []backend.Value) backend.Value {
	b1p := b.Mul(state[0], b.Scalar(b1))
	b2p := b.Mul(state[1], b.Scalar(b2))
	newS[0], newS[1] = b1p, b2p
	one := b.Scalar(1)
	return b.Div(b.Mul(hp.LearningRate, b.Sqrt(b.Sub(one, b2p))), b.Sub(one, b1p))
}
