package optimizers

import (
	"fmt"
	"math"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// RMSprop divides the gradient by a running root mean square,
// keras.optimizers.RMSprop.
type RMSprop struct {
	LearningRate float64 // default 0.001
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate.
	Schedule schedules.LearningRateSchedule
	Rho      float64 // default 0.9
	Epsilon  float64 // default 1e-7
	// Momentum, when positive, accumulates the steps with this momentum
	// (Keras's momentum, default 0).
	Momentum float64
	// Centered divides by the variance of the gradient rather than its
	// mean square (Keras's centered, default false).
	Centered bool
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

// State declares one running mean square per parameter, and with
// Momentum a momentum, with Centered a mean gradient (three groups, as
// Keras makes them).
func (o *RMSprop) State(params []backend.Shape) []StateSpec {
	out := slots(params, "velocity")
	if o.Momentum > 0 {
		out = append(out, groupSlots(params, 1, 1, "momentum")...)
	}
	if o.Centered {
		out = append(out, groupSlots(params, 2, len(out)/max(len(params), 1), "average_gradient")...)
	}
	return out
}

// Update implements Keras 3's rule: v = rho*v + (1-rho)*g²; centered:
// a = rho*a + (1-rho)*g and d = v - a² + eps, else d = v + eps;
// step = lr*g/sqrt(d); with momentum m = momentum*m + step, p -= m,
// else p -= step.
func (o *RMSprop) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	rho := o.or(o.Rho, 0.9)
	lr, eps := hp.LearningRate, b.Scalar(o.or(o.Epsilon, 1e-7))
	n := len(params)
	newP := make([]backend.Value, n)
	newS := make([]backend.Value, len(state))
	momentumAt, averageAt := n, n
	if o.Momentum > 0 {
		averageAt += n
	}
	for i, p := range params {
		g := grads[i]
		v := b.Add(b.Mul(state[i], b.Scalar(rho)), b.Mul(b.Square(g), b.Scalar(1-rho)))
		newS[i] = v
		denominator := b.Add(v, eps)
		if o.Centered {
			a := b.Add(b.Mul(state[averageAt+i], b.Scalar(rho)), b.Mul(g, b.Scalar(1-rho)))
			newS[averageAt+i] = a
			denominator = b.Add(b.Sub(v, b.Square(a)), eps)
		}
		step := b.Div(b.Mul(g, lr), b.Sqrt(denominator))
		if o.Momentum > 0 {
			step = b.Add(b.Mul(state[momentumAt+i], b.Scalar(o.Momentum)), step)
			newS[momentumAt+i] = step
		}
		newP[i] = b.Sub(p, step)
	}
	return newP, newS
}

func (o *RMSprop) checkSettings() error {
	if o.Momentum < 0 || math.IsNaN(o.Momentum) {
		return fmt.Errorf("optimizer rmsprop: Momentum must be >= 0, got %v", o.Momentum)
	}
	return nil
}
