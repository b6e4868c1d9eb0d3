package optimizers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// ScheduleFreeAdamW is keras.optimizers.ScheduleFreeAdamW (Defazio et
// al., 2024): AdamW without a learning-rate schedule, which keeps the
// average x of its iterates and trains the weights y = (1-β1)·z + β1·x
// at an interpolation between that average and the fast iterate z (its
// momentum slot, which starts as the weights). WarmupSteps scales the
// learning rate up linearly over the first steps.
type ScheduleFreeAdamW struct {
	LearningRate float64 // default 0.0025
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate (the method is meant to need none).
	Schedule    schedules.LearningRateSchedule
	Beta1       float64 // default 0.9
	Beta2       float64 // default 0.999
	Epsilon     float64 // default 1e-8
	WarmupSteps int
	Options
}

// Name returns "schedule_free_adam_w", Keras's default name.
func (*ScheduleFreeAdamW) Name() string { return "schedule_free_adam_w" }

func (o *ScheduleFreeAdamW) rate() (*float64, *schedules.LearningRateSchedule, float64) {
	return &o.LearningRate, &o.Schedule, 0.0025
}

func (o *ScheduleFreeAdamW) resolve() {
	o.Beta1, o.Beta2, o.Epsilon = o.or(o.Beta1, 0.9), o.or(o.Beta2, 0.999), o.or(o.Epsilon, 1e-8)
}

func (o *ScheduleFreeAdamW) checkSettings() error {
	if b1 := o.or(o.Beta1, 0.9); b1 <= 0 || b1 > 1 {
		return fmt.Errorf("optimizer schedule_free_adam_w: Beta1 must be in (0, 1], got %v (the weights are recovered by dividing by it)", b1)
	}
	if o.WarmupSteps < 0 {
		return fmt.Errorf("optimizer schedule_free_adam_w: WarmupSteps must be >= 0, got %d", o.WarmupSteps)
	}
	return nil
}

// State declares a momentum (the iterate z) and a velocity per
// parameter, as Keras.
func (o *ScheduleFreeAdamW) State(params []backend.Shape) []StateSpec { return slots(params, "z", "v") }

// Update implements Keras 3's update_step, t being the update count plus
// one. Keras sets the momentum to the weights when it builds its state,
// on the first update: here the first update reads the weights in its
// place (before weight decay, as Keras copies them).
func (o *ScheduleFreeAdamW) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	b1, b2, eps := o.or(o.Beta1, 0.9), o.or(o.Beta2, 0.999), o.or(o.Epsilon, 1e-8)
	n := len(params)
	one := b.Scalar(1)
	t := b.Add(hp.Iteration, one)
	lr := hp.LearningRate
	if o.WarmupSteps > 0 {
		lr = b.Mul(lr, b.Minimum(b.Div(t, b.Scalar(float64(o.WarmupSteps))), one))
	}
	first := b.Sub(one, b.Minimum(hp.Iteration, one)) // 1 on the first update
	correction := b.Sub(one, powerAt(b, b2, t))
	weight := b.Div(one, t)
	newP, newS := make([]backend.Value, n), make([]backend.Value, len(state))
	for i, y := range params {
		g, z, v := grads[i], state[i], state[n+i]
		undecayed := y
		if wd := o.WeightDecay; wd > 0 {
			undecayed = b.Div(y, b.Sub(one, b.Mul(hp.LearningRate, b.Scalar(wd))))
		}
		z = b.Add(b.Mul(first, undecayed), b.Mul(b.Sub(one, first), z))
		v = b.Add(v, b.Mul(b.Sub(b.Square(g), v), b.Scalar(1-b2)))
		denom := b.Add(b.Sqrt(b.Div(v, correction)), b.Scalar(eps))
		zNew := b.Sub(z, b.Div(b.Mul(lr, g), denom))
		x := b.Div(b.Sub(y, b.Mul(z, b.Scalar(1-b1))), b.Scalar(b1))
		x = b.Add(b.Mul(b.Sub(one, weight), x), b.Mul(weight, zNew))
		newP[i] = b.Add(b.Mul(zNew, b.Scalar(1-b1)), b.Mul(x, b.Scalar(b1)))
		newS[i], newS[n+i] = zNew, v
	}
	return newP, newS
}
