package optimizers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
)

// Ftrl is McMahan's "Follow The Regularized Leader" (FTRL-Proximal),
// keras.optimizers.Ftrl, suited to wide sparse models. Zero fields are
// Keras's defaults except where noted; NewFtrl takes them as given.
type Ftrl struct {
	LearningRate float64 // default 0.001
	// Schedule, when set, gives the learning rate of every step instead
	// of LearningRate.
	Schedule                          schedules.LearningRateSchedule
	LearningRatePower                 float64 // default -0.5; must be <= 0
	InitialAccumulatorValue           float64 // default 0.1
	L1RegularizationStrength          float64 // default 0
	L2RegularizationStrength          float64 // default 0
	L2ShrinkageRegularizationStrength float64 // default 0
	Beta                              float64 // default 0
	Options
}

// NewFtrl returns Ftrl with its learning rate, power and initial
// accumulator as given, zeros included.
func NewFtrl(learningRate, learningRatePower, initialAccumulatorValue float64) *Ftrl {
	return &Ftrl{LearningRate: learningRate, LearningRatePower: learningRatePower, InitialAccumulatorValue: initialAccumulatorValue, Options: Options{exact: true}}
}

// Name returns "ftrl".
func (*Ftrl) Name() string { return "ftrl" }

func (o *Ftrl) rate() (*float64, *schedules.LearningRateSchedule, float64) {
	return &o.LearningRate, &o.Schedule, 0.001
}

func (o *Ftrl) resolve() {
	o.LearningRatePower = o.or(o.LearningRatePower, -0.5)
	o.InitialAccumulatorValue = o.or(o.InitialAccumulatorValue, 0.1)
}

func (o *Ftrl) checkSettings() error {
	if p := o.or(o.LearningRatePower, -0.5); p > 0 {
		return fmt.Errorf("optimizer ftrl: LearningRatePower must be <= 0, got %v", p)
	}
	for _, v := range []float64{o.InitialAccumulatorValue, o.L1RegularizationStrength, o.L2RegularizationStrength, o.L2ShrinkageRegularizationStrength, o.Beta} {
		if v < 0 {
			return fmt.Errorf("optimizer ftrl: the initial accumulator, regularization strengths and beta must be >= 0, got %v", v)
		}
	}
	return nil
}

// State declares, per parameter, the accumulator (starting at
// InitialAccumulatorValue) and the linear term.
func (o *Ftrl) State(params []backend.Shape) []StateSpec {
	s := slots(params, "accumulator", "linear")
	for i := range s {
		if s[i].Slot == 0 {
			s[i].Init = o.or(o.InitialAccumulatorValue, 0.1)
		}
	}
	return s
}

// pow is x^e for positive x.
func powPositive(b backend.Builder, x backend.Value, e float64) backend.Value {
	if e == 0.5 {
		return b.Sqrt(x)
	}
	return b.Exp(b.Mul(b.Log(x), b.Scalar(e)))
}

// Update implements Keras 3's Ftrl.update_step.
func (o *Ftrl) Update(b backend.Builder, hp Hyperparameters, params, grads, state []backend.Value) ([]backend.Value, []backend.Value) {
	power := -o.or(o.LearningRatePower, -0.5)
	lr := hp.LearningRate
	l1 := o.L1RegularizationStrength
	l2 := b.Add(b.Scalar(o.L2RegularizationStrength), b.Div(b.Scalar(o.Beta/2), lr))
	n := len(params)
	newP := make([]backend.Value, n)
	newS := make([]backend.Value, len(state))
	for i, p := range params {
		g, accum, linear := grads[i], state[i], state[n+i]
		gradToUse := b.Add(g, b.Mul(p, b.Scalar(2*o.L2ShrinkageRegularizationStrength)))
		newAccum := b.Add(accum, b.Square(g))
		sigma := b.Div(b.Sub(powPositive(b, newAccum, power), powPositive(b, accum, power)), lr)
		linear = b.Add(linear, b.Sub(gradToUse, b.Mul(sigma, p)))
		quadratic := b.Add(b.Div(powPositive(b, newAccum, power), lr), b.Mul(l2, b.Scalar(2)))
		clipped := b.Minimum(b.Maximum(linear, b.Scalar(-l1)), b.Scalar(l1))
		newP[i] = b.Div(b.Sub(clipped, linear), quadratic)
		newS[i], newS[n+i] = newAccum, linear
	}
	return newP, newS
}
