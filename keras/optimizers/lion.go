package optimizers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// Lion is the sign-momentum optimizer found by program search (Chen et
// al., 2023), keras.optimizers.Lion. Its steps are lr in size along every
// coordinate, so it is usually run with a 3-10x smaller learning rate than
// Adam.
type Lion struct {
	LearningRate float64 // default 0.001
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate.
	Schedule schedules.LearningRateSchedule
	Beta1    float64 // default 0.9; must be in (0, 1]
	Beta2    float64 // default 0.99
	Options
}

// NewLion returns Lion with every setting as given, zeros included.
func NewLion(learningRate, beta1, beta2 float64) *Lion {
	return &Lion{LearningRate: learningRate, Beta1: beta1, Beta2: beta2, Options: Options{exact: true}}
}

// Name returns "lion".
func (*Lion) Name() string { return "lion" }

func (o *Lion) rate() (*float64, *schedules.LearningRateSchedule, float64) {
	return &o.LearningRate, &o.Schedule, 0.001
}

func (o *Lion) resolve() { o.Beta1, o.Beta2 = o.or(o.Beta1, 0.9), o.or(o.Beta2, 0.99) }

func (o *Lion) checkSettings() error {
	if b1 := o.or(o.Beta1, 0.9); b1 <= 0 || b1 > 1 {
		return fmt.Errorf("optimizer lion: Beta1 must be in (0, 1], got %v (at 0 Lion degenerates to sign SGD, as Keras warns)", b1)
	}
	return nil
}

// State declares one momentum per parameter.
func (o *Lion) State(params []backend.Shape) []StateSpec { return slots(params, "momentum") }

// Update implements Keras 3's rule: p -= lr*sign(beta1*m + (1-beta1)*g);
// m = beta2*m + (1-beta2)*g.
func (o *Lion) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	b1, b2 := o.or(o.Beta1, 0.9), o.or(o.Beta2, 0.99)
	zero := b.Scalar(0)
	newP := make([]backend.Value, len(params))
	newS := make([]backend.Value, len(state))
	for i, p := range params {
		g, m := grads[i], state[i]
		c := b.Add(b.Mul(m, b.Scalar(b1)), b.Mul(g, b.Scalar(1-b1)))
		sign := b.Sub(b.Greater(c, zero), b.Greater(zero, c))
		newP[i] = b.Sub(p, b.Mul(sign, hp.LearningRate))
		newS[i] = b.Add(b.Mul(m, b.Scalar(b2)), b.Mul(g, b.Scalar(1-b2)))
	}
	return newP, newS
}
