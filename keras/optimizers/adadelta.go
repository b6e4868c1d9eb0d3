package optimizers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// Adadelta adapts step sizes from running averages of squared gradients and
// squared updates, keras.optimizers.Adadelta.
type Adadelta struct {
	LearningRate float64 // default 0.001 (Keras 3); the classic examples used 1.0
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate.
	Schedule schedules.LearningRateSchedule
	Rho      float64 // default 0.95
	Epsilon  float64 // default 1e-7
	Options
}

// NewAdadelta returns Adadelta with every setting as given, zeros
// included.
func NewAdadelta(learningRate, rho, epsilon float64) *Adadelta {
	return &Adadelta{LearningRate: learningRate, Rho: rho, Epsilon: epsilon, Options: Options{exact: true}}
}

// Name returns "adadelta".
func (*Adadelta) Name() string { return "adadelta" }

func (o *Adadelta) rate() (*float64, *schedules.LearningRateSchedule, float64) {
	return &o.LearningRate, &o.Schedule, 0.001
}

func (o *Adadelta) resolve() { o.Rho, o.Epsilon = o.or(o.Rho, 0.95), o.or(o.Epsilon, 1e-7) }

// State declares the accumulated squared gradients and updates.
func (o *Adadelta) State(params []backend.Shape) []StateSpec {
	return slots(params, "accumulated_grad", "accumulated_delta_var")
}

// Update implements Keras 3's rule: G = rho*G + (1-rho)*g²;
// d = -sqrt(D+eps)*g/sqrt(G+eps); D = rho*D + (1-rho)*d²; p += lr*d.
func (o *Adadelta) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	rho := o.or(o.Rho, 0.95)
	lr, eps := hp.LearningRate, b.Scalar(o.or(o.Epsilon, 1e-7))
	r, r1 := b.Scalar(rho), b.Scalar(1-rho)
	n := len(params)
	newP := make([]backend.Value, n)
	newS := make([]backend.Value, len(state))
	for i, p := range params {
		g := grads[i]
		accG := b.Add(b.Mul(state[i], r), b.Mul(b.Square(g), r1))
		delta := b.Neg(b.Div(b.Mul(b.Sqrt(b.Add(state[n+i], eps)), g), b.Sqrt(b.Add(accG, eps))))
		accD := b.Add(b.Mul(state[n+i], r), b.Mul(b.Square(delta), r1))
		newS[i], newS[n+i] = accG, accD
		newP[i] = b.Add(p, b.Mul(delta, lr))
	}
	return newP, newS
}
