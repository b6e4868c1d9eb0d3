package optimizers

import (
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// AdamW is Adam with decoupled weight decay (Loshchilov and Hutter),
// keras.optimizers.AdamW: Adam's rule, and before it every weight shrinks
// by weight * WeightDecay * learning rate. Options.WeightDecay defaults to
// Keras's 0.004 here (NewAdamW takes 0 as 0).
type AdamW struct {
	LearningRate float64 // default 0.001
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate.
	Schedule schedules.LearningRateSchedule
	Beta1    float64 // default 0.9
	Beta2    float64 // default 0.999
	Epsilon  float64 // default 1e-7
	// AMSGrad is Adam's (see Adam.AMSGrad).
	AMSGrad bool
	Options
}

// NewAdamW returns AdamW with every setting as given, zeros included.
func NewAdamW(learningRate, weightDecay, beta1, beta2, epsilon float64) *AdamW {
	return &AdamW{LearningRate: learningRate, Beta1: beta1, Beta2: beta2, Epsilon: epsilon, Options: Options{WeightDecay: weightDecay, exact: true}}
}

// Name returns "adamw".
func (*AdamW) Name() string { return "adamw" }

func (o *AdamW) rate() (*float64, *schedules.LearningRateSchedule, float64) {
	return &o.LearningRate, &o.Schedule, 0.001
}

func (o *AdamW) resolve() {
	o.resolveAdamLike(&o.Beta1, &o.Beta2, &o.Epsilon)
	o.WeightDecay = o.or(o.WeightDecay, 0.004)
}

// State declares what Adam's does.
func (o *AdamW) State(params []backend.Shape) []StateSpec {
	return adamState(params, o.or(o.Beta1, 0.9), o.or(o.Beta2, 0.999), o.AMSGrad)
}

// Update is Adam's rule (the weight decay is applied before it, by Apply).
func (o *AdamW) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	return adamUpdate(b, hp, o.or(o.Beta1, 0.9), o.or(o.Beta2, 0.999), o.or(o.Epsilon, 1e-7), o.AMSGrad, params, grads, state)
}
