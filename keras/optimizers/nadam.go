package optimizers

import (
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// Nadam is Adam with Nesterov momentum (Dozat), keras.optimizers.Nadam,
// with Keras's momentum schedule u_t = beta1*(1 - 0.5*0.96^t).
type Nadam struct {
	LearningRate float64 // default 0.001
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate.
	Schedule schedules.LearningRateSchedule
	Beta1    float64 // default 0.9
	Beta2    float64 // default 0.999
	Epsilon  float64 // default 1e-7
	Options
}

// NewNadam returns Nadam with every setting as given, zeros included.
func NewNadam(learningRate, beta1, beta2, epsilon float64) *Nadam {
	return &Nadam{LearningRate: learningRate, Beta1: beta1, Beta2: beta2, Epsilon: epsilon, Options: Options{exact: true}}
}

// Name returns "nadam".
func (*Nadam) Name() string { return "nadam" }

func (o *Nadam) rate() (*float64, *schedules.LearningRateSchedule, float64) {
	return &o.LearningRate, &o.Schedule, 0.001
}

func (o *Nadam) resolve() {
	o.resolveAdamLike(&o.Beta1, &o.Beta2, &o.Epsilon)
}

// nadamDecay is Keras's fixed momentum-schedule base.
const nadamDecay = 0.96

// State declares 0.96^t and beta2^t (loading recomputes them from the
// iteration count), the product of the momentum schedule u_1...u_t
// (Keras saves it after the slots) and per parameter the momentum and
// velocity.
func (o *Nadam) State(params []backend.Shape) []StateSpec {
	b1 := o.or(o.Beta1, 0.9)
	uProduct := StateSpec{Name: "u_product", Shape: backend.Shape{}, Init: 1, Param: -1, SavedLast: true, FromIterations: func(t int64) float64 {
		p := 1.0
		for k := int64(1); k <= t; k++ {
			p *= b1 * (1 - 0.5*math.Pow(nadamDecay, float64(k)))
		}
		return p
	}}
	specs := []StateSpec{power("decay_power", nadamDecay), power("beta2_power", o.or(o.Beta2, 0.999)), uProduct}
	return append(specs, slots(params, "momentum", "velocity")...)
}

// Update implements Keras 3's rule, with t the step (from 1):
// u_t = beta1(1-0.5*0.96^t), u_{t+1} likewise, U_t = u_1...u_t;
// m += (g-m)(1-beta1); v += (g²-v)(1-beta2);
// m̂ = u_{t+1}m/(1-U_t u_{t+1}) + (1-u_t)g/(1-U_t); v̂ = v/(1-beta2^t);
// p -= lr*m̂/(sqrt(v̂)+eps).
func (o *Nadam) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	b1, b2, eps := o.or(o.Beta1, 0.9), o.or(o.Beta2, 0.999), b.Scalar(o.or(o.Epsilon, 1e-7))
	n := len(params)
	one, half, beta1 := b.Scalar(1), b.Scalar(0.5), b.Scalar(b1)
	decayT := b.Mul(state[0], b.Scalar(nadamDecay)) // 0.96^t
	b2p := b.Mul(state[1], b.Scalar(b2))
	uT := b.Mul(beta1, b.Sub(one, b.Mul(half, decayT)))
	uNext := b.Mul(beta1, b.Sub(one, b.Mul(half, b.Mul(decayT, b.Scalar(nadamDecay)))))
	uProduct := b.Mul(state[2], uT)
	mScale := b.Div(uNext, b.Sub(one, b.Mul(uProduct, uNext)))
	gScale := b.Div(b.Sub(one, uT), b.Sub(one, uProduct))
	vScale := b.Div(one, b.Sub(one, b2p))
	newP := make([]backend.Value, n)
	newS := make([]backend.Value, len(state))
	newS[0], newS[1], newS[2] = decayT, b2p, uProduct
	for i, p := range params {
		g := grads[i]
		m := b.Add(state[3+i], b.Mul(b.Sub(g, state[3+i]), b.Scalar(1-b1)))
		v := b.Add(state[3+n+i], b.Mul(b.Sub(b.Square(g), state[3+n+i]), b.Scalar(1-b2)))
		newS[3+i], newS[3+n+i] = m, v
		mHat := b.Add(b.Mul(m, mScale), b.Mul(g, gScale))
		newP[i] = b.Sub(p, b.Div(b.Mul(mHat, hp.LearningRate), b.Add(b.Sqrt(b.Mul(v, vScale)), eps)))
	}
	return newP, newS
}
