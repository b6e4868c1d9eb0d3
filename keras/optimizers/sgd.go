package optimizers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// SGD is gradient descent with optional momentum and Nesterov momentum,
// keras.optimizers.SGD.
type SGD struct {
	LearningRate float64 // default 0.01
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate (Keras's learning_rate=<a schedule>).
	Schedule schedules.LearningRateSchedule
	Momentum float64 // default 0
	Nesterov bool
	Options
}

// NewSGD returns SGD with the given learning rate and momentum, zeros
// included.
func NewSGD(learningRate, momentum float64) *SGD {
	return &SGD{LearningRate: learningRate, Momentum: momentum, Options: Options{exact: true}}
}

// Name returns "sgd".
func (*SGD) Name() string { return "sgd" }

func (o *SGD) rate() (*float64, *schedules.LearningRateSchedule, float64) {
	return &o.LearningRate, &o.Schedule, 0.01
}

func (o *SGD) resolve() {}

// State declares one velocity per parameter when Momentum > 0.
func (o *SGD) State(params []backend.Shape) []StateSpec {
	if o.Momentum == 0 {
		return nil
	}
	return slots(params, "momentum")
}

// Update implements Keras 3's rule: v = momentum*v - lr*g; then
// p += v, or p += momentum*v - lr*g with Nesterov.
func (o *SGD) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	lr := hp.LearningRate
	newP := make([]backend.Value, len(params))
	newS := make([]backend.Value, len(state))
	for i, p := range params {
		if o.Momentum == 0 {
			newP[i] = b.SGDUpdate(p, grads[i], lr)
			continue
		}
		step := b.Mul(grads[i], lr)
		m := b.Scalar(o.Momentum)
		v := b.Sub(b.Mul(state[i], m), step)
		newS[i] = v
		if o.Nesterov {
			newP[i] = b.Add(p, b.Sub(b.Mul(v, m), step))
		} else {
			newP[i] = b.Add(p, v)
		}
	}
	return newP, newS
}
