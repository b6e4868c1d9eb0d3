package optimizers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// RMSprop divides the gradient by a running root mean square,
// keras.optimizers.RMSprop (without its momentum and centered options).
type RMSprop struct {
	LearningRate float64 // default 0.001
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate.
	Schedule schedules.LearningRateSchedule
	Rho      float64 // default 0.9
	Epsilon  float64 // default 1e-7
	Options
}

// NewRMSprop returns RMSprop with every setting as given, zeros included.
func NewRMSprop(learningRate, rho, epsilon float64) *RMSprop {
	return &RMSprop{LearningRate: learningRate, Rho: rho, Epsilon: epsilon, Options: Options{exact: true}}
}

// Name returns "rmsprop".
func (*RMSprop) Name() string { return "rmsprop" }

func (o *RMSprop) rate() (*float64, *schedules.LearningRateSchedule, float64) {
	return &o.LearningRate, &o.Schedule, 0.001
}

func (o *RMSprop) resolve() { o.Rho, o.Epsilon = o.or(o.Rho, 0.9), o.or(o.Epsilon, 1e-7) }

// State declares one running mean square per parameter.
func (o *RMSprop) State(params []backend.Shape) []StateSpec { return slots(params, "velocity") }

// Update implements Keras 3's rule: v = rho*v + (1-rho)*g²;
// p -= lr*g/sqrt(v+eps).
func (o *RMSprop) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	rho := o.or(o.Rho, 0.9)
	lr, eps := hp.LearningRate, b.Scalar(o.or(o.Epsilon, 1e-7))
	newP := make([]backend.Value, len(params))
	newS := make([]backend.Value, len(state))
	for i, p := range params {
		g := grads[i]
		v := b.Add(b.Mul(state[i], b.Scalar(rho)), b.Mul(b.Square(g), b.Scalar(1-rho)))
		newS[i] = v
		newP[i] = b.Sub(p, b.Div(b.Mul(g, lr), b.Sqrt(b.Add(v, eps))))
	}
	return newP, newS
}
